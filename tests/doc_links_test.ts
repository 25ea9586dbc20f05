/** No link of the documentation leaves the repository, and every one it makes resolves: file and anchor. */
import assert from "node:assert/strict";
import { codeSpans, headingAnchors, linkTargets, parseMarkdown } from "./support/markdown.ts";

const ROOT = new URL("../", import.meta.url);

async function documents(): Promise<string[]> {
  const docs: string[] = [];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) docs.push(`docs/${entry.name}`);
  }
  return ["README.md", "RELIABILITY.md", "BENCHMARKS.md", ...docs.sort()];
}

/** Why `target`, linked from `from`, does not resolve inside the repository; null when it does. */
async function brokenLink(from: string, target: string): Promise<string | null> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // http:, https:, mailto: name no file of ours
  const [path, fragment] = target.split("#", 2);
  const resolved = new URL(path || from.split("/").pop()!, new URL(from, ROOT));
  if (!resolved.href.startsWith(ROOT.href)) return "leaves the repository";
  let text: string;
  try {
    const info = await Deno.stat(resolved);
    if (!info.isFile || fragment === undefined || !resolved.pathname.endsWith(".md")) return null;
    text = await Deno.readTextFile(resolved);
  } catch {
    return "names no file";
  }
  return headingAnchors(text).has(decodeURIComponent(fragment)) ? null : `has no heading #${fragment}`;
}

Deno.test("README.md, RELIABILITY.md, BENCHMARKS.md and docs/*.md link only to files and headings of the repository", async () => {
  const broken: string[] = [];
  let checked = 0;
  for (const document of await documents()) {
    const { paragraphs } = parseMarkdown(await Deno.readTextFile(new URL(document, ROOT)));
    for (const paragraph of paragraphs) {
      for (const target of linkTargets(paragraph.text)) {
        checked++;
        const why = await brokenLink(document, target);
        if (why) broken.push(`${document}:${paragraph.line}: ${target} ${why}`);
      }
      // a path written as code, as a reader would follow it, must not lead out either
      for (const span of codeSpans(paragraph.text)) {
        if (/^\.\.\//.test(span) && !document.startsWith("docs/")) {
          broken.push(`${document}:${paragraph.line}: \`${span}\` leaves the repository`);
        }
      }
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked > 10, `only ${checked} links found: the reader is broken`);
  const read = await documents();
  for (const page of ["docs/integrate.md", "docs/deploy.md", "docs/operate.md", "docs/develop.md"]) {
    assert.ok(read.includes(page), `${page} is read`);
  }
});

Deno.test("headingAnchors() makes GitHub's anchors, numbering repeats", () => {
  const anchors = headingAnchors(
    "# create-order\n\n## Guest tracking: track-order\n\n### `payment-webhook`\n\n## Deploy\n\n## Deploy\n",
  );
  assert.deepEqual([...anchors], [
    "create-order",
    "guest-tracking-track-order",
    "payment-webhook",
    "deploy",
    "deploy-1",
  ]);
});
