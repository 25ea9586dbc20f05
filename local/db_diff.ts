/**
 * The difference between the database the migrations leave and the one supabase/schemas/ describes, as the
 * SQL that takes the first to the second. Both are built on a PostgreSQL server, in temporary databases
 * dropped after, twice: without default privileges (as new Supabase projects) and with the old permissive
 * ones. The SQL is Supabase's own schema-diff engine's (@supabase/pg-delta, with its Supabase profile, which
 * leaves Supabase's own schemas and roles out), planned on the first pair. It is then run on both migrations'
 * databases, and each pair's catalogs compared (schema_catalog.ts), so a difference the engine writes nothing
 * for (a revoke only an older project needs) is still reported.
 */
import {
  isDestructiveAction,
  plan,
  renderPlanFiles,
  resolveProfile,
  supabaseProfile,
} from "@supabase/pg-delta";
import pg from "pg";
import { applySchemas } from "./declarative_schemas.ts";
import { resetDatabase } from "./migrate.ts";
import { openPostgres } from "./open_database.ts";
import { catalogDifferences, schemaCatalog } from "./schema_catalog.ts";

/** The temporary databases' names start with this; the rest is `<ms>_<hex>_<side>`. */
export const DIFF_DATABASE_PREFIX = "create_order_diff_";

/** What `diffSchemas` found. */
export interface SchemaDiff {
  /** The migration's statements, in order, or null when the two databases are the same. */
  sql: string | null;
  /** The statements of `sql` that drop or rewrite something (a dropped column loses its data). */
  destructive: string[];
  /**
   * What still differs once `sql` has run on the migrations' database (none when pg-delta saw everything):
   * a kind of difference the engine does not write (the privileges of an identity column's sequence), or a
   * column placed elsewhere than a migration can put it (a new column goes last).
   */
  uncovered: string[];
  /** pg-delta's errors about either database (an object it cannot read). */
  errors: string[];
}

/**
 * Builds the databases on the server at `serverUrl` (a connection URL of any database there, whose user
 * may create databases) and diffs them; drops them all whatever happens.
 */
export async function diffSchemas(serverUrl: string): Promise<SchemaDiff> {
  const admin = openPostgres(serverUrl, 1);
  const stamp = `${DIFF_DATABASE_PREFIX}${Date.now()}_${crypto.randomUUID().slice(0, 8)}`;
  // the diff is planned on a project set up as new ones are (no default privileges), and proved on one set
  // up as older ones are too (everything granted to the API roles by default): a migration that creates a
  // table or function must revoke what the schema file revokes, or an older project keeps it open
  const names = {
    migrations: `${stamp}_m`,
    schemas: `${stamp}_s`,
    migrationsPermissive: `${stamp}_mp`,
    schemasPermissive: `${stamp}_sp`,
  };
  try {
    await _dropAbandoned(admin);
    for (const name of Object.values(names)) await admin.exec(`create database ${name}`);
    const url = (name: string) => _withDatabase(serverUrl, name);
    const permissive = { defaultPrivileges: "permissive" } as const;
    // all to their end, so that none is still connected when the databases are dropped
    const built = await Promise.allSettled([
      _build(url(names.migrations), (db) => resetDatabase(db, { seed: false })),
      _build(url(names.schemas), (db) => applySchemas(db)),
      _build(url(names.migrationsPermissive), (db) => resetDatabase(db, { seed: false, ...permissive })),
      _build(url(names.schemasPermissive), (db) => applySchemas(db, permissive)),
    ]);
    for (const result of built) if (result.status === "rejected") throw result.reason;
    return await _diff(url(names.migrations), url(names.schemas), {
      migrations: url(names.migrationsPermissive),
      schemas: url(names.schemasPermissive),
    });
  } finally {
    for (const name of Object.values(names)) {
      await admin.exec(`drop database if exists ${name} with (force)`).catch(() => {});
    }
    await admin.close();
  }
}

async function _build(
  url: string,
  build: (db: ReturnType<typeof openPostgres>) => Promise<void>,
): Promise<void> {
  const db = openPostgres(url, 1);
  try {
    await build(db);
  } finally {
    await db.close();
  }
}

async function _diff(
  migrationsUrl: string,
  schemasUrl: string,
  permissive: { migrations: string; schemas: string },
): Promise<SchemaDiff> {
  const source = new pg.Pool({ connectionString: migrationsUrl, max: 2 });
  const desired = new pg.Pool({ connectionString: schemasUrl, max: 2 });
  // an idle client's connection ending (the databases are dropped after) is no error of the diff's
  for (const pool of [source, desired]) pool.on("error", () => {});
  try {
    const profile = await resolveProfile(source, supabaseProfile);
    const [from, to] = await Promise.all([profile.extract(source), profile.extract(desired)]);
    const errors = [...from.diagnostics, ...to.diagnostics]
      .filter((d) => d.severity === "error")
      .map((d) => `${d.code}: ${d.message}`);
    const migration = plan(from.factBase, to.factBase, {
      ...profile.planOptions,
      renames: "off",
      compact: true,
    });
    const rendered = renderPlanFiles(migration, { allowDrops: true });
    if (rendered.files.length > 1) {
      throw new Error(
        `pg-delta splits this change into ${rendered.files.length} transactions (a statement that cannot run ` +
          `inside one): write it as that many migrations by hand:\n\n${
            rendered.files.map((file) => file.contents).join("\n-- next transaction\n")
          }`,
      );
    }
    const sql = rendered.changes ? rendered.files[0].contents : null;
    const destructive = migration.actions.filter(isDestructiveAction).map((action) => action.sql);
    // the proof: the migration, run as the migration runner runs it, must leave the schemas' database
    if (sql !== null) {
      for (const url of [migrationsUrl, permissive.migrations]) {
        await _build(url, (db) => db.execTransaction(sql)).catch((error) => {
          throw new Error(`the migration pg-delta wrote fails: ${(error as Error).message}\n\n${sql}`, {
            cause: error,
          });
        });
      }
    }
    const uncovered = [
      ...await _catalogDifferences(migrationsUrl, schemasUrl),
      ...(await _catalogDifferences(permissive.migrations, permissive.schemas)).map((difference) =>
        `on a project whose default privileges grant everything to the API roles: ${difference}`
      ),
    ];
    return { sql, destructive, uncovered, errors };
  } finally {
    await Promise.all([source.end(), desired.end()]);
  }
}

async function _catalogDifferences(migrationsUrl: string, schemasUrl: string): Promise<string[]> {
  const a = openPostgres(migrationsUrl, 1);
  const b = openPostgres(schemasUrl, 1);
  try {
    const [fromMigrations, described] = await Promise.all([schemaCatalog(a), schemaCatalog(b)]);
    return catalogDifferences(fromMigrations, described, { a: "migrations", b: "schemas" });
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

function _withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/** A run that was killed leaves its databases: dropped once an hour old and unused. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

async function _dropAbandoned(admin: ReturnType<typeof openPostgres>): Promise<void> {
  const rows = await admin.query<{ datname: string }>(
    `select datname from pg_database where datname like '${DIFF_DATABASE_PREFIX}%'`,
  );
  for (const { datname } of rows) {
    const madeAt = Number(datname.slice(DIFF_DATABASE_PREFIX.length).split("_")[0]);
    if (!(Date.now() - madeAt > ABANDONED_AFTER_MS)) continue;
    await admin.exec(`drop database if exists ${datname}`).catch(() => {});
  }
}
