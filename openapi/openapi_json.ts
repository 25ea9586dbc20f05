/** The text of openapi.json: the document, two-space indented, with a final newline. */
import { buildOpenApiDocument } from "./openapi_document.ts";

/** What `deno task openapi` writes and the staleness test compares with the committed file. */
export function openApiJson(): string {
  return JSON.stringify(buildOpenApiDocument(), null, 2) + "\n";
}
