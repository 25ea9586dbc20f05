/**
 * Prints TypeScript type literals the way prettier (semi: false, 80 columns) lays out the output of
 * `supabase gen types typescript`: an object stays on one line when it fits and was not written expanded,
 * else one member a line; a union that does not fit breaks before each `|`; an array that does not fit
 * takes one item a line with a trailing comma. Only the shapes the generated `Database` type uses.
 */

const WIDTH = 80;

/** A piece of type (or, for the constants, value) syntax. */
export type Doc =
  | { kind: "text"; text: string }
  | { kind: "object"; members: Member[]; expanded: boolean; value: boolean }
  | { kind: "union"; types: Doc[] }
  | { kind: "array"; items: Doc[] };

/** `key: value` or `key?: value`; `rawKey` prints the key as given (a mapped type's `[_ in never]`). */
export interface Member {
  key: string;
  value: Doc;
  optional?: boolean;
  rawKey?: boolean;
}

/** A literal piece of syntax. */
export const text = (value: string): Doc => ({ kind: "text", text: value });

/** A type literal; `expanded` keeps it one member a line whatever its length (the generator wrote it so). */
export const object = (members: Member[], expanded = false): Doc => ({
  kind: "object",
  members,
  expanded,
  value: false,
});

/** An object expression (commas, trailing comma when broken), always one member a line. */
export const valueObject = (members: Member[]): Doc => ({
  kind: "object",
  members,
  expanded: true,
  value: true,
});

/** A union type. */
export const union = (types: Doc[]): Doc => ({ kind: "union", types });

/** An array literal or tuple type. */
export const array = (items: Doc[]): Doc => ({ kind: "array", items });

/** A member; the key is quoted only where it must be, as prettier's quoteProps "as-needed" does. */
export const member = (key: string, value: Doc, optional = false): Member => ({ key, value, optional });

/** Prints `doc` that starts at `column` on a line indented by `indent`, followed on that line by `suffix`. */
export function printDoc(doc: Doc, indent = 0, column = indent, suffix = ""): string {
  const oneLine = _flat(doc);
  if (oneLine !== null && column + oneLine.length + suffix.length <= WIDTH) return oneLine;
  const pad = " ".repeat(indent + 2);
  switch (doc.kind) {
    case "text":
      return doc.text;
    case "object": {
      if (doc.members.length === 0) return "{}";
      const separator = doc.value ? "," : "";
      const lines = doc.members.map((m) => pad + _printMember(m, indent + 2, separator) + separator);
      return `{\n${lines.join("\n")}\n${" ".repeat(indent)}}`;
    }
    case "array":
      return `[\n${
        doc.items.map((item) => `${pad}${printDoc(item, indent + 2, indent + 2, ",")},`).join("\n")
      }\n${" ".repeat(indent)}]`;
    case "union":
      return _printUnionBroken(doc.types, indent);
  }
}

function _printUnionBroken(types: Doc[], indent: number): string {
  return types.map((type) => `| ${printDoc(type, indent + 2, indent + 2)}`).join(`\n${" ".repeat(indent)}`);
}

function _key(m: Member): string {
  const key = m.rawKey || /^[A-Za-z_$][\w$]*$/.test(m.key) ? m.key : JSON.stringify(m.key);
  return `${key}${m.optional ? "?" : ""}:`;
}

function _printMember(m: Member, indent: number, suffix: string): string {
  const key = _key(m);
  if (m.value.kind === "union") {
    const oneLine = _flat(m.value);
    if (oneLine !== null && indent + key.length + 1 + oneLine.length + suffix.length <= WIDTH) {
      return `${key} ${oneLine}`;
    }
    // one group: broken, every member goes on its own line behind a leading `|`
    const pad = " ".repeat(indent + 2);
    return `${key}\n${pad}${_printUnionBroken(m.value.types, indent + 2)}`;
  }
  return `${key} ${printDoc(m.value, indent, indent + key.length + 1, suffix)}`;
}

/** The one-line form, or null when the doc must break (an expanded object inside). */
function _flat(doc: Doc): string | null {
  switch (doc.kind) {
    case "text":
      return doc.text.includes("\n") ? null : doc.text;
    case "object": {
      if (doc.expanded) return null;
      if (doc.members.length === 0) return "{}";
      const members = doc.members.map((m) => {
        const value = _flat(m.value);
        return value === null ? null : `${_key(m)} ${value}`;
      });
      if (members.includes(null)) return null;
      return `{ ${members.join(doc.value ? ", " : "; ")} }`;
    }
    case "union": {
      const types = doc.types.map(_flat);
      return types.includes(null) ? null : types.join(" | ");
    }
    case "array": {
      const items = doc.items.map(_flat);
      return items.includes(null) ? null : `[${items.join(", ")}]`;
    }
  }
}
