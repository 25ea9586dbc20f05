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
