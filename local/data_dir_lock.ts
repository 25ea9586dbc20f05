/**
 * One process at a time on a PGlite data directory: PGlite has no server, so two processes that open the
 * same directory would each write its files as if alone. The guard is an exclusive lock (flock) on
 * `<dataDir>.lock`, which the operating system releases when its holder exits, however it exits: a lock
 * file left behind by a killed process locks nothing.
 */

/** Thrown when another process holds the data directory. */
export class DataDirInUseError extends Error {
  /** Who holds it, as the holder wrote it ("the dev task (pid 4242)"), or "another process". */
  readonly holder: string;

  constructor(dataDir: string, holder: string) {
    super(`${dataDir}/ is open in ${holder}: PGlite serves one process at a time`);
    this.name = "DataDirInUseError";
    this.holder = holder;
  }
}

/** A held lock; `release()` lets the next process in (exiting does too). */
export interface DataDirLock {
  release(): void;
}

/**
 * Takes the lock of `dataDir` for this process, or throws {@linkcode DataDirInUseError} naming the holder.
 * `holder` describes this process to the next one that tries ("the dev task").
 */
export async function lockDataDir(dataDir: string, holder: string): Promise<DataDirLock> {
  const path = `${dataDir.replace(/\/+$/, "")}.lock`;
  // not truncated on open: the holder's own description must survive our attempt
  const file = await Deno.open(path, { read: true, write: true, create: true });
  if (!(await file.tryLock(true))) {
    const text = (await Deno.readTextFile(path).catch(() => "")).trim();
    file.close();
    throw new DataDirInUseError(dataDir.replace(/\/+$/, ""), text || "another process");
  }
  await file.truncate(0);
  await file.write(new TextEncoder().encode(`${holder} (pid ${Deno.pid})\n`));
  return {
    release() {
      // closing the descriptor drops the flock
      file.close();
    },
  };
}
