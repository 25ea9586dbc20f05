/**
 * Runs a task of deno.json as `deno task` would (its own command, permissions and script), in a directory
 * of the test's choosing: a task's relative paths (.local/db/, .local/outbox/) then land there, not in the
 * developer's checkout. `deno task` itself always runs in deno.json's directory, hence this.
 */
const ROOT = new URL("../../", import.meta.url);

/** The `deno run …` arguments of `task`, with the repository's config and an absolute script path. */
export async function taskArgs(task: string, extra: string[] = []): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    tasks: Record<string, string>;
  };
  const command = config.tasks[task];
  if (!command) throw new Error(`deno.json has no task ${task}`);
  const [deno, run, ...rest] = command.split(" ");
  if (deno !== "deno" || run !== "run") throw new Error(`task ${task} is not a plain deno run: ${command}`);
  const script = rest.pop()!;
  return [
    run,
    "--config",
    new URL("deno.json", ROOT).pathname,
    ...rest,
    new URL(script, ROOT).pathname,
    ...extra,
  ];
}

/** A `deno task <task>` process started in `cwd` with `env` added to this one's environment. */
export async function spawnTask(
  task: string,
  options: { cwd: string; env?: Record<string, string>; args?: string[] },
): Promise<Deno.ChildProcess> {
  return new Deno.Command(Deno.execPath(), {
    args: await taskArgs(task, options.args),
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs `deno task <task>` in `cwd` to its end. */
export async function runTask(
  task: string,
  options: { cwd: string; env?: Record<string, string>; args?: string[] },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await (await spawnTask(task, options)).output();
  const text = new TextDecoder();
  return { code: output.code, stdout: text.decode(output.stdout), stderr: text.decode(output.stderr) };
}

/** Reads `stream` until a line matches `pattern` (or throws at its end); the rest keeps flowing to `sink`. */
export async function waitForLine(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
  sink: string[] = [],
): Promise<string> {
  const lines = stream.pipeThrough(new TextDecoderStream()).pipeThrough(_splitLines());
  const reader = lines.getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the process ended before printing ${pattern}:\n${sink.join("\n")}`);
    sink.push(value);
    if (pattern.test(value)) {
      // drain the rest so the child never blocks on a full pipe
      (async () => {
        for (let next = await reader.read(); !next.done; next = await reader.read()) sink.push(next.value);
      })();
      return value;
    }
  }
}

function _splitLines(): TransformStream<string, string> {
  let buffer = "";
  return new TransformStream({
    transform(chunk, controller) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      for (const line of parts) controller.enqueue(line);
    },
    flush(controller) {
      if (buffer) controller.enqueue(buffer);
    },
  });
}
