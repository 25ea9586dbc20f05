import assert from "node:assert/strict";
import { parseTaskFlags, TaskUsageError } from "../local/task_flags.ts";

const USAGE = "deno task x --name <name>";

Deno.test("parseTaskFlags() reads --flag value and --flag=value (a value may hold = and spaces), and keeps the rest in order", () => {
  assert.deepEqual(
    parseTaskFlags(["a.csv", "--name", "Chai & Co.", "--store=id=1", "b.csv"], ["name", "store"], USAGE),
    { flags: { name: "Chai & Co.", store: "id=1" }, positional: ["a.csv", "b.csv"] },
  );
});

Deno.test("parseTaskFlags() refuses an unknown flag, a flag given twice and a flag without its value, with the usage", () => {
  for (
    const [args, message] of [
      [["--nme", "x"], `unknown flag --nme: ${USAGE}`],
      [["--name", "x", "--name=y"], `--name is given twice: ${USAGE}`],
      [["--name"], `--name needs a value: ${USAGE}`],
      [["--name", "--store=1"], `--name needs a value: ${USAGE}`],
    ] as const
  ) {
    assert.throws(() => parseTaskFlags(args, ["name", "store"], USAGE), new TaskUsageError(message));
  }
});
