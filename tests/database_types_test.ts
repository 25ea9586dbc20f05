/**
 * supabase/functions/_shared/database.types.ts is what `deno task gen:types` prints from the migrated
 * database, in the layout of `supabase gen types typescript`: a migration that changes a table or a
 * function without regenerating the types fails here.
 */
import assert from "node:assert/strict";
import { DATABASE_TYPES_FILE } from "../local/gen_types.ts";
import { readSchemaMetadata } from "../local/schema_metadata.ts";
import { array, member, object, printDoc, text, union } from "../local/type_printer.ts";
import { renderDatabaseTypes } from "../local/typescript_types.ts";
import { testDatabases } from "./support/databases.ts";

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name:
      `[${name}] database.types.ts is the types generated from the migrated database (deno task gen:types)`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const generated = renderDatabaseTypes(await readSchemaMetadata(db));
      const committed = await Deno.readTextFile(DATABASE_TYPES_FILE);
      assert.ok(
        generated === committed,
        "supabase/functions/_shared/database.types.ts is stale: run `deno task gen:types` and commit it",
      );
    },
  });
}

Deno.test("printDoc() keeps what fits in 80 columns on one line and breaks the rest as prettier does", async (t) => {
  const long = text(`Database["public"]["Tables"]["email_outbox_with_a_long_name"]["Row"]`);
  await t.step("a signature that fits stays on one line", () => {
    const doc = object([
      member("f", object([member("Args", text("never")), member("Returns", text("Json"))])),
    ], true);
    assert.equal(printDoc(doc), "{\n  f: { Args: never; Returns: Json }\n}");
  });
  await t.step("a signature that does not fit breaks, its parts on their own lines", () => {
    const doc = object([
      member("f", object([member("Args", object([member("p_row", long)])), member("Returns", text("Json"))])),
    ], true);
    assert.equal(
      printDoc(doc),
      `{\n  f: {\n    Args: {\n      p_row: ${
        (long as { text: string }).text
      }\n    }\n    Returns: Json\n  }\n}`,
    );
  });
  await t.step("a union member that does not fit breaks before each |", () => {
    const labels = ["pending", "payment_pending", "processing", "delivered", "cancelled"];
    const doc = object([member("order_status", union(labels.map((l) => text(JSON.stringify(l)))))], true);
    assert.equal(
      printDoc(doc, 4),
      `{\n      order_status:\n${labels.map((l) => `        | "${l}"`).join("\n")}\n    }`,
    );
  });
  await t.step("an array that does not fit takes one item a line, with a trailing comma", () => {
    const items = ["pending", "payment_pending", "paid", "processing", "shipped", "delivered"];
    const doc = array(items.map((i) => text(JSON.stringify(i))));
    assert.equal(printDoc(doc, 0, 40), `[\n${items.map((i) => `  "${i}",`).join("\n")}\n]`);
    assert.equal(printDoc(array([text('"a"')]), 0, 0), '["a"]');
  });
  await t.step("a key that is no identifier is quoted, an optional one marked", () => {
    assert.equal(
      printDoc(object([member("user-id", text("number"), true), member("id", text("string"))])),
      '{ "user-id"?: number; id: string }',
    );
  });
});
