/**
 * The flags of the go-live tasks: `--name value` or `--name=value`, and positional arguments. Pure.
 */

/** A command line the task cannot run with; the message says what to type instead. */
export class TaskUsageError extends Error {
  override name = "TaskUsageError";
}

/** The flags in `args` (each of `known`, at most once) and the other arguments, in order. */
export function parseTaskFlags(
  args: readonly string[],
  known: readonly string[],
  usage: string,
): { flags: Record<string, string>; positional: string[] } {
  const flags: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (!known.includes(name)) throw new TaskUsageError(`unknown flag --${name}: ${usage}`);
    if (name in flags) throw new TaskUsageError(`--${name} is given twice: ${usage}`);
    const value = inline ?? args[++i];
    if (value === undefined || (inline === undefined && value.startsWith("--"))) {
      throw new TaskUsageError(`--${name} needs a value: ${usage}`);
    }
    flags[name] = value;
  }
  return { flags, positional };
}
