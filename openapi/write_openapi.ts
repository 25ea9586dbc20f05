/**
 * `deno task openapi`: writes openapi.json at the repository's root from the zod schemas
 * (`openapi_document.ts`). tests/openapi_test.ts fails when the committed file is not what this writes.
 */
import { openApiJson } from "./openapi_json.ts";

const target = new URL("../openapi.json", import.meta.url);
await Deno.writeTextFile(target, openApiJson());
console.log(`wrote ${target.pathname}`);
