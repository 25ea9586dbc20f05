/**
 * Checks a function's live answer against the committed openapi.json: the response schema the document
 * gives for that path, method and status, validated with Ajv's JSON Schema 2020-12 (OpenAPI 3.1's
 * dialect). `startTestStack` runs it on every answer of every end-to-end test.
 */
import { documentAjv } from "./document_ajv.ts";

const DOCUMENT_ID = "https://create-order.local/openapi.json";
const document = JSON.parse(await Deno.readTextFile(new URL("../../openapi.json", import.meta.url)));

// formats (uuid) are also written as patterns by zod, which Ajv checks; OpenAPI's own keywords
// (`examples` in a schema is JSON Schema's too) are not Ajv's concern
const ajv = documentAjv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(document, DOCUMENT_ID);

const _pointer = (...parts: string[]) =>
  parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"));

/**
 * Why `body` (parsed JSON, or null for none) is not what openapi.json documents for `status` of `method`
 * on the function at `path` (`/create-order`); null when it is. A method the path does not list must be
 * 405 METHOD_NOT_ALLOWED; an OPTIONS answer must be the documented preflight.
 */
export function openApiMismatch(path: string, method: string, status: number, body: unknown): string | null {
  const operations = document.paths[path];
  if (!operations) return `${path} is not in openapi.json`;
  const operation = operations[method.toLowerCase()];
  let schemaRef: string;
  if (!operation) {
    if (status !== 405) return `${method} ${path} answered ${status}: an undocumented method must be 405`;
    schemaRef = "#/components/schemas/MethodNotAllowedError";
  } else {
    const response = operation.responses[String(status)];
    if (!response) return `${method} ${path} answered ${status}, which openapi.json does not list`;
    if (!response.content) {
      return body === null ? null : `${method} ${path} ${status} has a body openapi.json does not describe`;
    }
    schemaRef = "#/" +
      _pointer(
        "paths",
        path,
        method.toLowerCase(),
        "responses",
        String(status),
        "content",
        "application/json",
      )
        .join("/") +
      "/schema";
  }
  const validate = ajv.getSchema(`${DOCUMENT_ID}${schemaRef}`);
  if (!validate) return `no schema at ${schemaRef}`;
  if (validate(body)) return null;
  return `${method} ${path} ${status} ${JSON.stringify(body).slice(0, 400)} does not match openapi.json: ${
    ajv.errorsText(validate.errors)
  }`;
}

/** Checks a Response of the function at `path` (a clone: its body is read here). */
export async function responseMismatch(
  path: string,
  method: string,
  response: Response,
): Promise<string | null> {
  const text = await response.text();
  let body: unknown = null;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      return `${method} ${path} ${response.status} answered a body that is not JSON: ${text.slice(0, 100)}`;
    }
  }
  if (body !== null && !/^application\/json/.test(response.headers.get("content-type") ?? "")) {
    return `${method} ${path} ${response.status} has content-type ${response.headers.get("content-type")}`;
  }
  if (!response.headers.get("x-request-id")) {
    return `${method} ${path} ${response.status} has no x-request-id`;
  }
  return openApiMismatch(path, method, response.status, body) ??
    _challengeMismatch(path, method, response.status, response.headers.has("www-authenticate"));
}

/** Why the answer's WWW-Authenticate (sent or not) is not what openapi.json lists for it; null when it is. */
function _challengeMismatch(path: string, method: string, status: number, sent: boolean): string | null {
  const listed = Boolean(
    document.paths[path]?.[method.toLowerCase()]?.responses[String(status)]?.headers?.["WWW-Authenticate"],
  );
  if (listed === sent) return null;
  return `${method} ${path} ${status} ${sent ? "sends" : "has no"} WWW-Authenticate, ` +
    `which openapi.json ${listed ? "lists" : "does not list"}`;
}
