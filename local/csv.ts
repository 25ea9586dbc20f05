/**
 * A CSV reader for the files spreadsheets write (RFC 4180): fields separated by commas, a field in double
 * quotes may hold commas, line breaks and quotes (written twice), records end with CRLF or LF, and a UTF-8
 * byte order mark before the first field is dropped. Pure.
 */

/** One record with the line of the file it starts on (1-based: the header is line 1). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A file that is not CSV, named by the line where reading stopped. */
export class CsvSyntaxError extends Error {
  constructor(readonly line: number, problem: string) {
    super(`line ${line}: ${problem}`);
    this.name = "CsvSyntaxError";
  }
}

/**
 * The records of `text`, blank lines skipped. Throws {@linkcode CsvSyntaxError} for a quote that is never
 * closed, or text after a closing quote before the next comma.
 */
export function parseCsv(text: string): CsvRecord[] {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endField = () => {
    fields.push(field);
    field = "";
  };
  const endRecord = () => {
    endField();
    // a line with nothing on it is no record (a trailing newline, a blank line between rows)
    if (!(fields.length === 1 && fields[0] === "")) records.push({ line: recordLine, fields });
    fields = [];
  };
  while (i < source.length) {
    const char = source[i];
    if (char === '"' && field === "") {
      const quoteLine = line;
      i++;
      while (true) {
        if (i >= source.length) throw new CsvSyntaxError(quoteLine, "a quoted field is never closed");
        if (source[i] === '"') {
          if (source[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (source[i] === "\n") line++;
        field += source[i++];
      }
      const next = source[i];
      if (next !== undefined && next !== "," && next !== "\n" && next !== "\r") {
        throw new CsvSyntaxError(line, "a quoted field must end at a comma or the end of its line");
      }
      continue;
    }
    if (char === ",") {
      endField();
      i++;
    } else if (char === "\r" || char === "\n") {
      endRecord();
      i += char === "\r" && source[i + 1] === "\n" ? 2 : 1;
      line++;
      recordLine = line;
    } else {
      field += char;
      i++;
    }
  }
  if (field !== "" || fields.length > 0) endRecord();
  return records;
}

/** A line of a file that is not UTF-8, with the first bad byte's position on it (1-based). */
export interface Utf8Problem {
  line: number;
  problem: string;
}

/**
 * The text of a file's bytes as UTF-8 (what spreadsheets write as "CSV UTF-8"), or every line that is not:
 * a file saved in another encoding (Windows-1252's `café` is the byte E9) would otherwise be read with
 * U+FFFD in place of each such character, and imported so.
 */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { problems: Utf8Problem[] } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    // found below, line by line
  }
  const problems: Utf8Problem[] = [];
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const bad = _firstInvalidByte(bytes.subarray(start, end));
    if (bad !== null) {
      const byte = bytes[start + bad].toString(16).toUpperCase().padStart(2, "0");
      problems.push({
        line,
        problem: `is not UTF-8 (byte ${byte} at byte ${bad + 1} of the line): save the file as CSV UTF-8`,
      });
    }
    start = end + 1;
  }
  return { problems };
}

// the offset of the first byte that starts no well-formed UTF-8 sequence (Unicode's table 3-7), or null
function _firstInvalidByte(line: Uint8Array): number | null {
  let i = 0;
  while (i < line.length) {
    const lead = line[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    // the sequence's length and the range of its second byte, by its first
    const [length, low, high] = lead >= 0xc2 && lead <= 0xdf
      ? [2, 0x80, 0xbf]
      : lead === 0xe0
      ? [3, 0xa0, 0xbf]
      : lead === 0xed
      ? [3, 0x80, 0x9f]
      : lead >= 0xe1 && lead <= 0xef
      ? [3, 0x80, 0xbf]
      : lead === 0xf0
      ? [4, 0x90, 0xbf]
      : lead >= 0xf1 && lead <= 0xf3
      ? [4, 0x80, 0xbf]
      : lead === 0xf4
      ? [4, 0x80, 0x8f]
      : [0, 0, 0];
    if (length === 0 || i + length > line.length) return i;
    if (line[i + 1] < low || line[i + 1] > high) return i;
    for (let k = 2; k < length; k++) if (line[i + k] < 0x80 || line[i + k] > 0xbf) return i;
    i += length;
  }
  return null;
}
