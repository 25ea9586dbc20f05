/**
 * Every command of the README runs as written on a machine with only Node.js: Deno through
 * `npx -y deno@<the version .ci/run uses>`, tasks that deno.json defines, and the curl that `deno task dev`
 * prints.
 */
import assert from "node:assert/strict";
import { SEED_EXAMPLE_ORDER } from "../local/example_order.ts";
import { codeSpans, parseMarkdown } from "./support/markdown.ts";

const ROOT = new URL("../", import.meta.url);
const README = await Deno.readTextFile(new URL("README.md", ROOT));
const { blocks, paragraphs } = parseMarkdown(README);
const TASKS = Object.keys(
  (JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as { tasks: Record<string, string> })
    .tasks,
);
const CI_VERSION = /npx -y deno@(\d+\.\d+\.\d+) task test/.exec(
  await Deno.readTextFile(new URL(".ci/run", ROOT)),
)![1];

/** The one paragraph allowed to name bare `deno` commands: the one for readers who have Deno installed. */
const EXPLANATION = /^With Deno installed/;

/** Every piece of code in the README with where it is: each block line, and each code span of prose. */
function codePieces(): { where: string; code: string; explanation: boolean }[] {
  const pieces = blocks.flatMap((block) =>
    block.lines.map((code, i) => ({ where: `line ${block.line + 1 + i}`, code, explanation: false }))
  );
  for (const paragraph of paragraphs) {
    for (const code of codeSpans(paragraph.text)) {
      pieces.push({
        where: `paragraph at line ${paragraph.line}`,
        code,
        explanation: EXPLANATION.test(paragraph.text),
      });
    }
  }
  return pieces;
}

Deno.test("README names only tasks that deno.json defines", () => {
  const named = codePieces().flatMap(({ where, code }) =>
    [...code.matchAll(/\bdeno(?:@[\d.]+)? task (?:--quiet |-q )?([\w:-]+)/g)].map((m) => ({
      where,
      task: m[1],
    }))
  );
  assert.ok(named.length >= 10, `only ${named.length} tasks named: the reader is broken`);
  assert.deepEqual(named.filter(({ task }) => !TASKS.includes(task)), []);
});

Deno.test("README runs Deno only as npx -y deno@<.ci/run's version>, outside the one explanation for Deno users", () => {
  const bare = codePieces().filter(({ code, explanation }) =>
    !explanation && /(^|[\s;|&(=`$'"])deno\s+[a-z-]/.test(code.replace(/npx -y deno@\d+\.\d+\.\d+/g, ""))
  );
  assert.deepEqual(bare, []);
  const versions = [...README.matchAll(/\bnpx (-y )?deno@([\d.]+)/g)];
  assert.ok(versions.length >= 10);
  assert.deepEqual(versions.filter((m) => m[1] !== "-y " || m[2] !== CI_VERSION).map((m) => m[0]), []);
});

Deno.test("README's first curl creates the order deno task dev prints, against the seed", () => {
  const curl = blocks.find((block) =>
    block.lines.some((line) => line.includes("/functions/v1/create-order"))
  )!;
  const text = curl.lines.join("\n");
  assert.match(text, /^curl -i http:\/\/127\.0\.0\.1:\$\{PORT:-54321\}\/functions\/v1\/create-order \\$/m);
  assert.match(text, /-H 'Authorization: Bearer local-anon-key-for-development-only'/);
  const body = /-d '([^']*)'/.exec(text)![1];
  assert.deepEqual(JSON.parse(body), SEED_EXAMPLE_ORDER);
});

Deno.test("README's commands honour PORT: the local stack's port is ${PORT:-54321}, or a line of code says PORT changes it", () => {
  const pinned = codePieces().filter(({ code }) =>
    /:54321\b/.test(code.replaceAll("${PORT:-54321}", "")) && !/\bPORT\b/.test(code)
  );
  // a TypeScript line may keep the number when the comment above it names PORT
  const commented = blocks.flatMap((block) =>
    block.lines.filter((line, i) => /:54321\b/.test(line) && /\bPORT\b/.test(block.lines[i - 1] ?? ""))
  );
  assert.deepEqual(pinned.filter(({ code }) => !commented.includes(code)), []);
  assert.ok(README.split("${PORT:-54321}").length > 10, "the README writes ${PORT:-54321}");
});
