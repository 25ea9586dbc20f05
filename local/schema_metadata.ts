/**
 * What `supabase gen types typescript` reads of a database (through postgres-meta): the tables, columns,
 * foreign keys, functions and types of the `public` schema, with the same catalog queries' meaning, so
 * `local/typescript_types.ts` can print the same `Database` type from the local database.
 */
import type { SqlSession } from "./sql_database.ts";

/** A column as postgres-meta describes it (`format` is the type's name, e.g. `int4`, `order_status`). */
export interface ColumnMeta {
  tableId: number;
  name: string;
  format: string;
  isNullable: boolean;
  isIdentity: boolean;
  identityGeneration: "ALWAYS" | "BY DEFAULT" | null;
  hasDefault: boolean;
}

/** A foreign key of a public table. */
export interface RelationshipMeta {
  foreignKeyName: string;
  relation: string;
  columns: string[];
  isOneToOne: boolean;
  referencedSchema: string;
  referencedRelation: string;
  referencedColumns: string[];
}

/** A function argument (`mode` in, out, inout, variadic or table). */
export interface ArgMeta {
  mode: string;
  name: string;
  typeId: number;
  hasDefault: boolean;
}

/** A function of `public` other than trigger functions, which PostgREST never exposes. */
export interface FunctionMeta {
  name: string;
  args: ArgMeta[];
  argumentTypes: string;
  returnTypeId: number;
  returnTypeRelationId: number | null;
  returnsSet: boolean;
  rows: number | null;
}

/** A type of any schema: enums carry labels, table and composite row types their relation. */
export interface TypeMeta {
  id: number;
  name: string;
  schema: string;
  enums: string[];
  isComposite: boolean;
  relationId: number | null;
}

/** Everything the generator prints from. */
export interface SchemaMetadata {
  tables: { id: number; name: string }[];
  columns: ColumnMeta[];
  relationships: RelationshipMeta[];
  functions: FunctionMeta[];
  types: TypeMeta[];
}

/** Reads the `public` schema's metadata. */
export async function readSchemaMetadata(db: SqlSession): Promise<SchemaMetadata> {
  const tables = await db.query<{ id: number; name: string }>(
    `select c.oid::int as id, c.relname::text as name from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')`,
  );
  const columns = await db.query<ColumnMeta>(
    `select c.oid::int as "tableId", a.attname::text as name,
       coalesce(bt.typname, t.typname)::text as format,
       not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)) as "isNullable",
       a.attidentity in ('a', 'd') as "isIdentity",
       case a.attidentity when 'a' then 'ALWAYS' when 'd' then 'BY DEFAULT' end as "identityGeneration",
       a.atthasdef as "hasDefault"
     from pg_attribute a
     join pg_class c on c.oid = a.attrelid
     join pg_type t on t.oid = a.atttypid
     left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and a.attnum > 0
       and not a.attisdropped`,
  );
  // columns of a constraint, by name, in the order PostgREST and postgres-meta compare them
  const fkColumns = (key: string, rel: string) =>
    `(select array_agg(a.attname::text order by u.ord) from unnest(f.${key}) with ordinality as u(n, ord)
       join pg_attribute a on a.attrelid = f.${rel} and a.attnum = u.n)`;
  const relationships = await db.query<RelationshipMeta>(
    `select f.conname::text as "foreignKeyName", tab.relname::text as relation,
       ${fkColumns("conkey", "conrelid")} as columns,
       exists (
         select 1 from pg_constraint k
         where k.conrelid = f.conrelid and k.contype in ('p', 'u')
           and (select array_agg(a.attname::text order by a.attnum) from unnest(k.conkey) as u(n)
                join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n) = ${
      fkColumns("conkey", "conrelid")
    }
       ) as "isOneToOne",
       ns2.nspname::text as "referencedSchema", other.relname::text as "referencedRelation",
       ${fkColumns("confkey", "confrelid")} as "referencedColumns"
     from pg_constraint f
     join pg_class tab on tab.oid = f.conrelid
     join pg_class other on other.oid = f.confrelid
     join pg_namespace ns2 on ns2.oid = other.relnamespace
     where f.contype = 'f' and f.conparentid = 0 and f.connamespace = 'public'::regnamespace`,
  );
  const functions = await db.query<FunctionMeta>(
    `select p.proname::text as name,
       coalesce((
         select jsonb_agg(jsonb_build_object(
           'mode', case m.mode when 'i' then 'in' when 'o' then 'out' when 'b' then 'inout' when 'v' then 'variadic'
             else 'table' end,
           'name', coalesce(p.proargnames[m.ord], ''),
           'typeId', m.type_id::int,
           'hasDefault', m.ord > p.pronargs - p.pronargdefaults and m.ord <= p.pronargs
         ) order by m.ord)
         from unnest(
           coalesce(p.proargmodes, array_fill('i'::"char", array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
           coalesce(p.proallargtypes, p.proargtypes::oid[])
         ) with ordinality as m(mode, type_id, ord)
       ), '[]'::jsonb) as args,
       pg_get_function_arguments(p.oid) as "argumentTypes",
       p.prorettype::int as "returnTypeId",
       nullif(rt.typrelid::int, 0) as "returnTypeRelationId",
       p.proretset as "returnsSet",
       case when p.proretset then nullif(p.prorows, 0)::int end as rows
     from pg_proc p
     join pg_type rt on rt.oid = p.prorettype
     where p.pronamespace = 'public'::regnamespace and p.prokind = 'f'
       and rt.typname not in ('trigger', 'event_trigger')`,
  );
  const types = await db.query<TypeMeta>(
    `select t.oid::int as id, t.typname::text as name, n.nspname::text as schema,
       coalesce((select jsonb_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid),
         '[]'::jsonb) as enums,
       coalesce((select c.relkind = 'c' from pg_class c where c.oid = t.typrelid), false) as "isComposite",
       nullif(t.typrelid::int, 0) as "relationId"
     from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where t.typrelid = 0 or (select c.relkind in ('c', 'r', 'v', 'm', 'p') from pg_class c where c.oid = t.typrelid)`,
  );
  return {
    tables,
    columns,
    relationships,
    functions: functions.map((fn) => ({ ...fn, args: _json(fn.args) })),
    types: types.map((type) => ({ ...type, enums: _json(type.enums) })),
  };
}

// jsonb comes back parsed from postgres.js and PGlite alike, but a driver that answers text is handled too
function _json<T>(value: T | string): T {
  return typeof value === "string" ? JSON.parse(value) : value;
}
