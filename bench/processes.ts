/** Child processes of the bench: starting them, waiting for their first 200, their memory, stopping them. */

/** A started child process. */
export interface Child {
  pid: number;
  /** Milliseconds from spawn to the first 200 of the probe. */
  readyMs: number;
  /** The highest RSS seen by {@linkcode Child.sampleRss} since the last reset, in MiB. */
  peakRssMiB(): number;
  /** What the child wrote to stderr so far, and whether it has exited (with which code). */
  stderr(): string;
  exitCode(): number | null;
  /** Samples RSS every 50 ms until the returned function is called; that returns the peak in MiB. */
  sampleRss(): () => number;
  stop(): Promise<void>;
}

/** How a child is probed for readiness: a request that must answer 200. */
export interface Probe {
  url: string;
  init?: RequestInit;
}

/** RSS of a process from /proc, in MiB (0 when it is gone). */
export function rssMiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Spawns `deno run <args>` with stdout to /dev/null and stderr kept, and polls the probe every 2 ms
 * until it answers 200 (connection refused and other answers are retried, up to `timeoutMs`).
 */
export async function startDeno(
  args: string[],
  env: Record<string, string>,
  probe: Probe,
  timeoutMs = 30_000,
): Promise<Child> {
  const started = performance.now();
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", ...args],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = process.stderr.pipeThrough(new TextDecoderStream());
  const errors: string[] = [];
  const reading = (async () => {
    for await (const chunk of stderr) errors.push(chunk);
  })();
  let exited = false;
  let code: number | null = null;
  const status = process.status.then((s) => {
    exited = true;
    code = s.code;
    return s;
  });

  let readyMs = NaN;
  while (!exited && performance.now() - started < timeoutMs) {
    try {
      const response = await fetch(probe.url, probe.init);
      await response.body?.cancel();
      if (response.status === 200) {
        readyMs = performance.now() - started;
        break;
      }
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const stop = async () => {
    if (!exited) process.kill("SIGTERM");
    const timer = setTimeout(() => !exited && process.kill("SIGKILL"), 5_000);
    await status;
    clearTimeout(timer);
    await reading;
  };
  if (!Number.isFinite(readyMs)) {
    await stop();
    throw new Error(
      `deno run ${args.join(" ")} never answered 200 at ${probe.url}:\n${errors.join("").slice(-3000)}`,
    );
  }

  let peak = 0;
  return {
    pid: process.pid,
    readyMs,
    peakRssMiB: () => peak,
    stderr: () => errors.join(""),
    exitCode: () => code,
    sampleRss() {
      peak = rssMiB(process.pid);
      const timer = setInterval(() => peak = Math.max(peak, rssMiB(process.pid)), 50);
      return () => {
        clearInterval(timer);
        peak = Math.max(peak, rssMiB(process.pid));
        return peak;
      };
    },
    stop,
  };
}
