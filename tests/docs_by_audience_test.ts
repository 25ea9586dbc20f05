/**
 * The documentation by audience: a short README (what it is, the two commands, the curl, one link per
 * audience) and a page under docs/ for each audience, where the reference text lives.
 */
import assert from "node:assert/strict";
import { linkTargets, parseMarkdown } from "./support/markdown.ts";

const ROOT = new URL("../", import.meta.url);
const README = await Deno.readTextFile(new URL("README.md", ROOT));
const PAGES = ["docs/integrate.md", "docs/deploy.md", "docs/operate.md", "docs/develop.md"];
const CI_VERSION = /npx -y deno@(\d+\.\d+\.\d+) task test/.exec(
  await Deno.readTextFile(new URL(".ci/run", ROOT)),
)![1];

Deno.test("README.md has at most 250 lines", () => {
  const lines = README.split("\n").length - (README.endsWith("\n") ? 1 : 0);
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});

Deno.test("README.md opens with the two commands that set up a fresh machine: the service, then the tests", () => {
  const first = parseMarkdown(README).blocks[0];
  assert.deepEqual(
    first.lines.map((line) => line.replace(/\s+#.*$/, "")),
    [`npx -y deno@${CI_VERSION} task dev`, `npx -y deno@${CI_VERSION} task test`],
  );
  const before = README.split("\n").slice(0, first.line - 1).join("\n");
  assert.equal(parseMarkdown(before).blocks.length, 0);
  assert.ok(!/^## /m.test(before), "no section comes before the two commands");
});

Deno.test("README.md links each audience's page, RELIABILITY.md and BENCHMARKS.md", () => {
  const targets = parseMarkdown(README).paragraphs.flatMap((paragraph) => linkTargets(paragraph.text));
  const files = new Set(targets.map((target) => target.split("#")[0]));
  for (const page of [...PAGES, "RELIABILITY.md", "BENCHMARKS.md"]) assert.ok(files.has(page), page);
});
