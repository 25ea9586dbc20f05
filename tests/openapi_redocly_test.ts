/**
 * openapi.json under Redocly's linter, as an integrator runs it (`npx -y @redocly/cli@2.77.0 lint
 * openapi.json`): every example conforms to its schema, and the only unused components are the two that
 * .redocly.lint-ignore.yaml names, with why. Redocly reads a schema that says nothing of other properties
 * as refusing them; the document says it (`additionalProperties: true`) wherever that is meant, so its
 * verdict on the examples is Ajv's and the functions'. The lint is skipped with a notice where npx cannot
 * fetch the CLI.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url).pathname;
const document = JSON.parse(await Deno.readTextFile(`${ROOT}openapi.json`));

/** Every schema of `value` (and its own pointer) that has `properties` and says nothing of others. */
function _silentSchemas(value: unknown, pointer: string): string[] {
  if (value === null || typeof value !== "object") return [];
  const found = Object.entries(value).flatMap(([key, inner]) => _silentSchemas(inner, `${pointer}/${key}`));
  const silent = "properties" in value && !("additionalProperties" in value) &&
    !("unevaluatedProperties" in value);
  return silent ? [pointer, ...found] : found;
}

Deno.test("every schema of openapi.json with properties says whether it takes others", () => {
  assert.deepEqual(_silentSchemas(document.components.schemas, "#/components/schemas"), []);
  assert.equal(document.components.schemas.RazorpayEvent.additionalProperties, true);
  assert.equal(document.components.schemas.StatusMoveRequest.additionalProperties, false);
});

Deno.test({
  name:
    "Redocly's lint of openapi.json finds every example valid and no unused component but the two it is told of",
  sanitizeResources: false,
  async fn() {
    const { code, stdout, stderr } = await new Deno.Command("npx", {
      args: ["-y", "@redocly/cli@2.77.0", "lint", "openapi.json", "--format=json"],
      cwd: ROOT,
      env: { NO_COLOR: "1", npm_config_fund: "false", npm_config_audit: "false" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(stdout);
    if (!out.trimStart().startsWith("{")) {
      console.warn(
        `notice: npx could not run @redocly/cli here (${code}): the lint is skipped. ` +
          new TextDecoder().decode(stderr).slice(0, 300),
      );
      return;
    }
    const report = JSON.parse(out);
    const problems = (report.problems as { ruleId: string; location: { pointer: string }[] }[])
      .filter((problem) => problem.ruleId !== "info-license")
      .filter((problem) => problem.ruleId !== "no-illogical-composition-keywords")
      .filter((problem) => problem.ruleId !== "operation-4xx-response")
      .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}`);
    assert.deepEqual(problems, []);
    assert.equal(report.totals.errors, 0);
    assert.equal(report.totals.ignored, 2);
  },
});
