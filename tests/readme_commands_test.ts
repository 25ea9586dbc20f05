/**
 * Every command of the README and of the pages under docs/ runs as written on a machine with only Node.js:
 * Deno through `npx -y deno@<the version .ci/run uses>`, tasks that deno.json defines, ports that follow
 * `PORT`, and the README's curl, the one that `deno task dev` prints.
 */
import assert from "node:assert/strict";
import { SEED_EXAMPLE_ORDER } from "../local/example_order.ts";
import { type CodeBlock, codeSpans, parseMarkdown } from "./support/markdown.ts";

const ROOT = new URL("../", import.meta.url);
const TASKS = Object.keys(
  (JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as { tasks: Record<string, string> })
    .tasks,
);
const CI_VERSION = /npx -y deno@(\d+\.\d+\.\d+) task test/.exec(
  await Deno.readTextFile(new URL(".ci/run", ROOT)),
)![1];

/** The README and every page of docs/, each with its text. */
async function documents(): Promise<{ name: string; text: string }[]> {
  const names = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) names.push(`docs/${entry.name}`);
  }
  return await Promise.all(
    names.sort().map(async (name) => ({ name, text: await Deno.readTextFile(new URL(name, ROOT)) })),
  );
}

const DOCUMENTS = await documents();
const README = DOCUMENTS.find(({ name }) => name === "README.md")!.text;

/** The one paragraph allowed to name bare `deno` commands: the README's, for readers who have Deno installed. */
const EXPLANATION = /^With Deno installed/;

interface CodePiece {
  where: string;
  code: string;
  explanation: boolean;
}

/** Every piece of code of the documents with where it is: each block line, and each code span of prose. */
function codePieces(): CodePiece[] {
  return DOCUMENTS.flatMap(({ name, text }) => {
    const { blocks, paragraphs } = parseMarkdown(text);
    const pieces: CodePiece[] = blocks.flatMap((block) =>
      block.lines.map((code, i) => ({ where: `${name}:${block.line + 1 + i}`, code, explanation: false }))
    );
    for (const paragraph of paragraphs) {
      for (const code of codeSpans(paragraph.text)) {
        pieces.push({
          where: `${name}: paragraph at line ${paragraph.line}`,
          code,
          explanation: name === "README.md" && EXPLANATION.test(paragraph.text),
        });
      }
    }
    return pieces;
  });
}

Deno.test("README and docs/*.md name only tasks that deno.json defines", () => {
  const named = codePieces().flatMap(({ where, code }) =>
    [...code.matchAll(/\bdeno(?:@[\d.]+)? task (?:--quiet |-q )?([\w:-]+)/g)].map((m) => ({
      where,
      task: m[1],
    }))
  );
  assert.ok(named.length >= 10, `only ${named.length} tasks named: the reader is broken`);
  assert.deepEqual(named.filter(({ task }) => !TASKS.includes(task)), []);
});

Deno.test("README and docs/*.md run Deno only as npx -y deno@<.ci/run's version>, outside the README's one explanation for Deno users", () => {
  const bare = codePieces().filter(({ code, explanation }) =>
    !explanation && /(^|[\s;|&(=`$'"])deno\s+[a-z-]/.test(code.replace(/npx -y deno@\d+\.\d+\.\d+/g, ""))
  );
  assert.deepEqual(bare, []);
  const versions = DOCUMENTS.flatMap(({ text }) => [...text.matchAll(/\bnpx (-y )?deno@([\d.]+)/g)]);
  assert.ok(versions.length >= 10);
  assert.deepEqual(versions.filter((m) => m[1] !== "-y " || m[2] !== CI_VERSION).map((m) => m[0]), []);
});

Deno.test("README's first curl creates the order deno task dev prints, against the seed", () => {
  const curl = parseMarkdown(README).blocks.find((block) =>
    block.lines.some((line) => line.includes("/functions/v1/create-order"))
  )!;
  const text = curl.lines.join("\n");
  assert.match(text, /^curl -i http:\/\/127\.0\.0\.1:\$\{PORT:-54321\}\/functions\/v1\/create-order \\$/m);
  assert.match(text, /-H 'Authorization: Bearer local-anon-key-for-development-only'/);
  const body = /-d '([^']*)'/.exec(text)![1];
  assert.deepEqual(JSON.parse(body), SEED_EXAMPLE_ORDER);
});

Deno.test("README's and docs/*.md's commands honour PORT: the local stack's port is ${PORT:-54321}, or a line of code says PORT changes it", () => {
  const pinned = codePieces().filter(({ code }) =>
    /:54321\b/.test(code.replaceAll("${PORT:-54321}", "")) && !/\bPORT\b/.test(code)
  );
  // a TypeScript line may keep the number when the comment above it names PORT
  const blocks: CodeBlock[] = DOCUMENTS.flatMap(({ text }) => parseMarkdown(text).blocks);
  const commented = blocks.flatMap((block) =>
    block.lines.filter((line, i) => /:54321\b/.test(line) && /\bPORT\b/.test(block.lines[i - 1] ?? ""))
  );
  assert.deepEqual(pinned.filter(({ code }) => !commented.includes(code)), []);
  const written = DOCUMENTS.reduce((n, { text }) => n + text.split("${PORT:-54321}").length - 1, 0);
  assert.ok(written > 10, "the documents write ${PORT:-54321}");
  assert.ok(README.includes("curl -i http://127.0.0.1:${PORT:-54321}/functions/v1/create-order"));
});
