/**
 * What a child process used, from /proc: CPU seconds (user + system, all its threads) from
 * `/proc/<pid>/stat`, and its peak resident memory (VmHWM of `/proc/<pid>/status`, which
 * `/proc/<pid>/clear_refs` resets to the current RSS so each run gets its own peak).
 */

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux if getconf is missing). */
export async function clockTicksPerSecond(): Promise<number> {
  try {
    const output = await new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped" }).output();
    const ticks = Number(new TextDecoder().decode(output.stdout).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/** utime + stime of `pid` in clock ticks; the fields after the `)` that ends the command name. */
export function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // fields 14 and 15 (utime, stime); the name in field 2 may hold spaces, so count from its ")"
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Sets VmHWM back to the current RSS; false when the kernel or our rights do not allow it. */
export function resetPeakRss(pid: number): boolean {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** VmHWM (peak RSS since start or the last reset) of `pid` in MiB; 0 when it is gone. */
export function peakRssSinceReset(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}
