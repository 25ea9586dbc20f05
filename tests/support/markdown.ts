/** Just enough Markdown reading for the documentation tests: code blocks, code spans, links, anchors. */

/** A fenced code block: its info string (language) and its lines. */
export interface CodeBlock {
  lang: string;
  lines: string[];
  /** 1-based line of the opening fence. */
  line: number;
}

/** The text outside fenced code blocks, as paragraphs (runs of non-blank lines), with their first line. */
export interface Paragraph {
  text: string;
  line: number;
}

/** Splits a Markdown document into its fenced code blocks and the paragraphs between them. */
export function parseMarkdown(markdown: string): { blocks: CodeBlock[]; paragraphs: Paragraph[] } {
  const blocks: CodeBlock[] = [];
  const paragraphs: Paragraph[] = [];
  let block: CodeBlock | null = null;
  let fence = "";
  let paragraph: Paragraph | null = null;
  markdown.split("\n").forEach((text, index) => {
    const opening = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/.exec(text);
    if (block) {
      if (text.trim().startsWith(fence) && text.trim().replace(/[`~]/g, "") === "") {
        blocks.push(block);
        block = null;
      } else {
        block.lines.push(text);
      }
      return;
    }
    if (opening) {
      if (paragraph) paragraphs.push(paragraph);
      paragraph = null;
      fence = opening[1];
      block = { lang: opening[2], lines: [], line: index + 1 };
      return;
    }
    if (text.trim() === "") {
      if (paragraph) paragraphs.push(paragraph);
      paragraph = null;
    } else if (paragraph) {
      paragraph.text += `\n${text}`;
    } else {
      paragraph = { text, line: index + 1 };
    }
  });
  if (paragraph) paragraphs.push(paragraph);
  if (block) throw new Error(`a code block opened at line ${(block as CodeBlock).line} is never closed`);
  return { blocks, paragraphs };
}

/** The code spans of a paragraph, in order (backtick runs of any length, as CommonMark pairs them). */
export function codeSpans(text: string): string[] {
  const spans: string[] = [];
  const pattern = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  for (const match of text.matchAll(pattern)) spans.push(match[2].replace(/\n/g, " ").trim());
  return spans;
}

/** A paragraph's text with its code spans removed: what may hold links. */
export function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, "");
}

/** The targets of a paragraph's inline links and images, `[text](target)` and `![alt](target "title")`. */
export function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const match of withoutCodeSpans(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(match[1]);
  }
  for (const match of text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) {
    targets.push(match[1]);
  }
  return targets;
}

/**
 * The anchors GitHub gives a document's headings: lower-cased, punctuation but `-` and `_` dropped,
 * each space a hyphen, and `-1`, `-2` … after a repeated one.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const paragraph of parseMarkdown(markdown).paragraphs) {
    for (const line of paragraph.text.split("\n")) {
      const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (!heading) continue;
      const text = heading[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
      const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
  }
  return anchors;
}
