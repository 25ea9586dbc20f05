/**
 * fast-check arbitraries of strings that match an ECMA-262 pattern (read with the `u` flag, as JSON
 * Schema reads `pattern`), for sampling request bodies from openapi.json. fast-check's own
 * `stringMatching` draws negated classes from ASCII only and fails on some property escapes (`\p{Cs}`):
 * here a character class is drawn from a pool of code points (mostly printable ASCII, then letters, marks,
 * spaces, format and control characters, astral ones, a lone surrogate) filtered by the class itself, so
 * the samples meet the characters a buyer's browser may send. Lookaheads draw nothing and every sample
 * is filtered by the whole pattern.
 */
import fc from "fast-check";

type Node =
  | { kind: "text"; text: string }
  | { kind: "set"; test: RegExp }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number };

/** How many more repetitions than the minimum an open quantifier (`*`, `+`, `{n,}`) draws at most. */
const OPEN_EXTRA = 8;

const _range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Printable ASCII, drawn most often. */
const ASCII = _range(0x20, 0x7e).map((cp) => String.fromCodePoint(cp));
/** The rest of the pool: what a hostile or simply international caller sends. */
const OTHERS = [
  ..._range(0x00, 0x1f),
  0x7f,
  ..._range(0x80, 0x9f),
  ..._range(0xa0, 0xff),
  ..._range(0x100, 0x17f),
  ..._range(0x300, 0x36f), // combining marks
  ..._range(0x391, 0x3c9), // Greek
  ..._range(0x900, 0x97f), // Devanagari
  ..._range(0xb80, 0xbff), // Tamil
  ..._range(0x2000, 0x206f), // spaces, zero-width, bidi controls, separators
  0x2800,
  0x3000,
  0x3164,
  ..._range(0x4e00, 0x4e3f),
  ..._range(0xfdd0, 0xfdef),
  ..._range(0xfe00, 0xfe0f),
  0xfeff,
  ..._range(0xfff0, 0xffff),
  ..._range(0x1f600, 0x1f64f),
  0x10000,
  0xe0001,
].map((cp) => String.fromCodePoint(cp)).concat(["\ud800", "\udfff"]);

/** Strings matching `pattern` (u flag), at most `maxLength` code points when given. */
export function patternArbitrary(pattern: string, maxLength?: number): fc.Arbitrary<string> {
  const whole = new RegExp(pattern, "u");
  const parser = new _Parser(pattern);
  const node = parser.disjunction();
  if (!parser.done()) throw new Error(`pattern not understood at ${parser.at}: ${pattern}`);
  return _arbitrary(node).filter((value) =>
    whole.test(value) && (maxLength === undefined || [...value].length <= maxLength)
  );
}

function _arbitrary(node: Node): fc.Arbitrary<string> {
  switch (node.kind) {
    case "text":
      return fc.constant(node.text);
    case "set": {
      const ascii = ASCII.filter((c) => node.test.test(c));
      const others = OTHERS.filter((c) => node.test.test(c));
      const choices = [
        ...(ascii.length ? [{ weight: 9, arbitrary: fc.constantFrom(...ascii) }] : []),
        ...(others.length ? [{ weight: 1, arbitrary: fc.constantFrom(...others) }] : []),
      ];
      if (choices.length === 0) throw new Error(`no character of the pool matches ${node.test}`);
      return fc.oneof(...choices);
    }
    case "seq":
      return node.items.length === 0
        ? fc.constant("")
        : fc.tuple(...node.items.map(_arbitrary)).map((parts) => parts.join(""));
    case "alt":
      return fc.oneof(...node.options.map(_arbitrary));
    case "repeat":
      return fc.array(_arbitrary(node.node), { minLength: node.min, maxLength: node.max })
        .map((parts) => parts.join(""));
  }
}

/** A recursive-descent reader of the patterns openapi.json carries (no back-references). */
class _Parser {
  at = 0;
  constructor(private readonly source: string) {}

  done(): boolean {
    return this.at === this.source.length;
  }

  disjunction(): Node {
    const options = [this._alternative()];
    while (this.source[this.at] === "|") {
      this.at++;
      options.push(this._alternative());
    }
    return options.length === 1 ? options[0] : { kind: "alt", options };
  }

  private _alternative(): Node {
    const items: Node[] = [];
    while (!this.done() && this.source[this.at] !== "|" && this.source[this.at] !== ")") {
      const atom = this._term();
      if (atom) items.push(this._quantified(atom));
    }
    return { kind: "seq", items };
  }

  /** One atom, or null for an assertion (`^`, `$`, a lookahead): those draw nothing. */
  private _term(): Node | null {
    const char = this.source[this.at];
    if (char === "^" || char === "$") {
      this.at++;
      return null;
    }
    if (char === "(") {
      const lookahead = /^\(\?[=!]/.test(this.source.slice(this.at));
      this.at += this.source.startsWith("(?:", this.at) ? 3 : lookahead ? 3 : 1;
      const inner = this.disjunction();
      this._expect(")");
      return lookahead ? null : inner;
    }
    if (char === "[") return this._class();
    if (char === ".") {
      this.at++;
      return { kind: "set", test: /^.$/u };
    }
    if (char === "\\") return this._escape();
    const codePoint = this.source.codePointAt(this.at)!;
    this.at += codePoint > 0xffff ? 2 : 1;
    return { kind: "text", text: String.fromCodePoint(codePoint) };
  }

  private _escape(): Node {
    const rest = this.source.slice(this.at);
    const escape = /^\\(?:[pP]\{[^}]+\}|u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|.)/u.exec(rest)![0];
    this.at += escape.length;
    if (/^\\[dDwWsSpP]/.test(escape)) return { kind: "set", test: new RegExp(`^${escape}$`, "u") };
    return { kind: "text", text: _unescape(escape) };
  }

  private _class(): Node {
    const start = this.at;
    this.at++;
    while (this.source[this.at] !== "]") {
      if (this.done()) throw new Error(`unclosed class in ${this.source}`);
      this.at += this.source[this.at] === "\\" ? 2 : 1;
    }
    this.at++;
    return { kind: "set", test: new RegExp(`^${this.source.slice(start, this.at)}$`, "u") };
  }

  private _quantified(atom: Node): Node {
    const rest = this.source.slice(this.at);
    const quantifier = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/.exec(rest);
    if (!quantifier) return atom;
    this.at += quantifier[0].length;
    const [, symbol, from, comma, to] = quantifier;
    if (symbol === "*") return { kind: "repeat", node: atom, min: 0, max: OPEN_EXTRA };
    if (symbol === "+") return { kind: "repeat", node: atom, min: 1, max: 1 + OPEN_EXTRA };
    if (symbol === "?") return { kind: "repeat", node: atom, min: 0, max: 1 };
    const min = Number(from);
    const max = !comma ? min : to === "" ? min + OPEN_EXTRA : Math.min(Number(to), min + 2 * OPEN_EXTRA);
    return { kind: "repeat", node: atom, min, max };
  }

  private _expect(char: string): void {
    if (this.source[this.at] !== char) throw new Error(`expected ${char} at ${this.at} in ${this.source}`);
    this.at++;
  }
}

/** The one character an escape outside a class stands for (`\.`, `\u00e9`, `\u{1F600}`, `\n`). */
function _unescape(escape: string): string {
  const hex = /^\\(?:u\{([0-9A-Fa-f]+)\}|u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2}))$/.exec(escape);
  if (hex) return String.fromCodePoint(parseInt(hex[1] ?? hex[2] ?? hex[3], 16));
  const named: Record<string, string> = { n: "\n", r: "\r", t: "\t", f: "\f", v: "\v", "0": "\0" };
  return named[escape[1]] ?? escape[1];
}
