/**
 * The database types for supabase-js, `supabase/functions/_shared/database.types.ts`, printed from the
 * schema metadata in the format `supabase gen types typescript --local` writes (postgres-meta's TypeScript
 * template for the `public` schema, one-to-one relationships detected, formatted as prettier does), so the
 * CLI's own output and ours can replace each other.
 */
import { DATABASE_HELPER_TYPES } from "./database_helper_types.ts";
import type { ColumnMeta, FunctionMeta, SchemaMetadata, TypeMeta } from "./schema_metadata.ts";
import {
  array,
  type Doc,
  type Member,
  member,
  object,
  printDoc,
  text,
  union,
  valueObject,
} from "./type_printer.ts";

const SCHEMA = "public";
const _NUMBER = ["int2", "int4", "int8", "float4", "float8", "numeric"];
const _STRING = [
  "bytea",
  "bpchar",
  "varchar",
  "date",
  "text",
  "citext",
  "time",
  "timetz",
  "timestamp",
  "timestamptz",
  "uuid",
  "vector",
  "interval",
];
// json, jsonb and text: the unnamed argument types PostgREST can still call a function with
const _UNNAMED_ARG_TYPES = new Set(["json", "jsonb", "text"]);

const _compare = (a: string, b: string) => a.localeCompare(b);
const _never = (): Member => ({ key: "[_ in never]", value: text("never"), rawKey: true });

/** The whole file, ending in a newline. */
export function renderDatabaseTypes(meta: SchemaMetadata): string {
  const typesById = new Map(meta.types.map((type) => [type.id, type]));
  const tsType = (name: string) => _tsType(name, meta);

  const columnType = (column: ColumnMeta) => {
    const type = tsType(column.format);
    return column.isNullable && type !== "unknown" ? union([text(type), text("null")]) : text(type);
  };
  const tables = [...meta.tables].sort((a, b) => _compare(a.name, b.name)).map((table) => {
    const columns = meta.columns.filter((c) => c.tableId === table.id).sort((a, b) =>
      _compare(a.name, b.name)
    );
    const writable = (optional: (c: ColumnMeta) => boolean) =>
      columns.map((c) =>
        c.identityGeneration === "ALWAYS"
          ? member(c.name, text("never"), true)
          : member(c.name, columnType(c), optional(c))
      );
    return member(
      table.name,
      object([
        member("Row", object(columns.map((c) => member(c.name, columnType(c))), true)),
        member("Insert", object(writable((c) => c.isNullable || c.isIdentity || c.hasDefault), true)),
        member("Update", object(writable(() => true), true)),
        member("Relationships", array(_relationships(meta, table.name))),
      ], true),
    );
  });

  const functions = _exposedFunctions(meta, typesById);
  const names = [...new Set(functions.map((fn) => fn.name))].sort(_compare);
  const functionMembers = names.map((name) => {
    const signatures = functions.filter((fn) => fn.name === name).sort((a, b) =>
      _compare(a.argumentTypes, b.argumentTypes)
    ).map((fn) => _signature(fn, typesById, tsType));
    return member(name, signatures.length === 1 ? signatures[0] : union(signatures));
  });

  const enums = meta.types.filter((type) => type.schema === SCHEMA && type.enums.length > 0)
    .sort((a, b) => _compare(a.name, b.name));
  const composites = meta.types.filter((type) => type.schema === SCHEMA && type.isComposite);
  if (composites.length > 0) {
    throw new Error(`composite types are not printed by this generator: ${composites[0].name}`);
  }

  const schema = object([
    member("Tables", object(tables.length > 0 ? tables : [_never()], true)),
    member("Views", object([_never()], true)),
    member("Functions", object(functionMembers.length > 0 ? functionMembers : [_never()], true)),
    member(
      "Enums",
      object(
        enums.length > 0
          ? enums.map((type) =>
            member(type.name, union(type.enums.map((label) => text(JSON.stringify(label)))))
          )
          : [_never()],
        true,
      ),
    ),
    member("CompositeTypes", object([_never()], true)),
  ], true);
  const constants = valueObject([
    member(
      SCHEMA,
      valueObject([
        member(
          "Enums",
          valueObject(
            enums.map((type) =>
              member(type.name, array(type.enums.map((label) => text(JSON.stringify(label)))))
            ),
          ),
        ),
      ]),
    ),
  ]);

  return `${_JSON_TYPE}\nexport type Database = ${
    printDoc(object([member(SCHEMA, schema)], true))
  }\n\n${DATABASE_HELPER_TYPES}\n` +
    `export const Constants = ${printDoc(constants)} as const\n`;
}

function _tsType(name: string, meta: SchemaMetadata): string {
  if (name === "bool") return "boolean";
  if (_NUMBER.includes(name)) return "number";
  if (_STRING.includes(name)) return "string";
  if (name === "json" || name === "jsonb") return "Json";
  if (name === "void") return "undefined";
  if (name === "record") return "Record<string, unknown>";
  if (name.startsWith("_")) {
    const element = _tsType(name.slice(1), meta);
    return /^[\w"[\]]+$/.test(element) ? `${element}[]` : `(${element})[]`;
  }
  const enumType = _preferPublic(meta.types.filter((type) => type.name === name && type.enums.length > 0));
  if (enumType) {
    return enumType.schema === SCHEMA
      ? `Database["${SCHEMA}"]["Enums"][${JSON.stringify(enumType.name)}]`
      : enumType.enums.map((label) => JSON.stringify(label)).join(" | ");
  }
  if (meta.types.some((type) => type.name === name && type.isComposite)) return "unknown";
  if (meta.tables.some((table) => table.name === name)) {
    return `Database["${SCHEMA}"]["Tables"][${JSON.stringify(name)}]["Row"]`;
  }
  return "unknown";
}

function _preferPublic(types: TypeMeta[]): TypeMeta | undefined {
  return types.find((type) => type.schema === SCHEMA) ?? types[0];
}

function _relationships(meta: SchemaMetadata, table: string): Doc[] {
  return meta.relationships
    .filter((r) => r.relation === table && r.referencedSchema === SCHEMA)
    .sort((a, b) =>
      _compare(a.foreignKeyName, b.foreignKeyName) || _compare(a.referencedRelation, b.referencedRelation) ||
      _compare(JSON.stringify(a.referencedColumns), JSON.stringify(b.referencedColumns))
    )
    .map((r) =>
      object([
        member("foreignKeyName", text(JSON.stringify(r.foreignKeyName))),
        member("columns", array(r.columns.map((c) => text(JSON.stringify(c))))),
        member("isOneToOne", text(String(r.isOneToOne))),
        member("referencedRelation", text(JSON.stringify(r.referencedRelation))),
        member("referencedColumns", array(r.referencedColumns.map((c) => text(JSON.stringify(c))))),
      ], true)
    );
}

/** The functions PostgREST can call: named arguments, or one unnamed json/jsonb/text argument. */
function _exposedFunctions(meta: SchemaMetadata, typesById: Map<number, TypeMeta>): FunctionMeta[] {
  return meta.functions.filter((fn) => {
    const inArgs = fn.args.filter((arg) => ["in", "inout", "variadic"].includes(arg.mode));
    const validUnnamed = (arg: FunctionMeta["args"][number]) =>
      _UNNAMED_ARG_TYPES.has(typesById.get(arg.typeId)?.name ?? "");
    return inArgs.length === 0 || inArgs.every((arg) => arg.name !== "") ||
      inArgs.every((arg) => arg.name !== "" || (arg.hasDefault && validUnnamed(arg))) ||
      (inArgs.length === 1 && validUnnamed(inArgs[0]));
  });
}

function _signature(
  fn: FunctionMeta,
  typesById: Map<number, TypeMeta>,
  tsType: (name: string) => string,
): Doc {
  if (fn.args.some((arg) => arg.mode === "table" || arg.mode === "out") || fn.returnTypeRelationId !== null) {
    throw new Error(`functions returning rows are not printed by this generator: ${fn.name}`);
  }
  const inArgs = [...fn.args].sort((a, b) => _compare(a.name, b.name))
    .filter((arg) => ["in", "inout", "variadic"].includes(arg.mode));
  const typeOf = (id: number) => {
    const type = typesById.get(id);
    return type ? tsType(type.name) : "unknown";
  };
  const args = inArgs.length === 0
    ? text("never")
    : object(inArgs.map((arg) => member(arg.name, text(typeOf(arg.typeId)), arg.hasDefault)));
  const returns = `${typeOf(fn.returnTypeId)}${fn.returnsSet ? "[]" : ""}`;
  return object([member("Args", args), member("Returns", text(returns))]);
}

const _JSON_TYPE = `export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]
`;
