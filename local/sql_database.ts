/**
 * One small interface over the two databases the local stack and the tests use: PGlite (embedded,
 * in-process) and a real PostgreSQL (postgres.js). Everything above it is the same for both.
 */
import type { PGlite, Transaction } from "@electric-sql/pglite";
import type { Sql, TransactionSql } from "postgres";

/** The statements a transaction can run. */
export interface SqlSession {
  /** Runs a parameterised statement and returns its rows. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

/** One connection of its own: its session-level settings and advisory locks last until `work` ends. */
export interface SqlConnection extends SqlSession {
  /** Runs `work` in one transaction on this connection: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
}

/** A database the local stack can migrate and run role-scoped calls on. */
export interface SqlDatabase extends SqlSession {
  readonly kind: "pglite" | "postgres";
  /** Runs a script of one or more statements without parameters. */
  exec(script: string): Promise<void>;
  /** Runs a script of statements in one transaction: all of it or none. */
  execTransaction(script: string): Promise<void>;
  /**
   * Runs `work` in one transaction under `set local role <role>` and the role's statement timeout
   * ({@linkcode API_ROLE_STATEMENT_TIMEOUT_MS}), as PostgREST does per request on Supabase.
   */
  asRole<T>(role: string, work: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Runs one statement as {@linkcode SqlDatabase.asRole} does (its own transaction, `set local role`),
   * in a single round trip where the driver can pipeline: the RPC route's hot path.
   */
  queryAsRole<T = Record<string, unknown>>(role: string, text: string, params?: unknown[]): Promise<T[]>;
  /**
   * Runs `work` on one connection reserved for it (a pool's other callers never get it meanwhile), so that
   * a session-level advisory lock holds across several short transactions.
   */
  withConnection<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const ROLE_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * The statement timeouts Supabase gives the API roles, which PostgREST applies per request: anon 3 s,
 * authenticated 8 s, and service_role none of its own, so the authenticator's 8 s.
 */
export const API_ROLE_STATEMENT_TIMEOUT_MS: Readonly<Record<string, number>> = {
  anon: 3_000,
  authenticated: 8_000,
  service_role: 8_000,
};

// one statement (it pipelines): the role, and the role's statement timeout where Supabase sets one
function _roleStatement(role: string): string {
  if (!ROLE_NAME.test(role)) {
    throw new Error(`role must be a plain SQL identifier: got ${JSON.stringify(role)}`);
  }
  const timeout = API_ROLE_STATEMENT_TIMEOUT_MS[role];
  return `select set_config('role', '${role}', true)${
    timeout ? `, set_config('statement_timeout', '${timeout}', true)` : ""
  }`;
}

/** Wraps an open PGlite. Its one connection serialises transactions, which PGlite does itself. */
export function pgliteDatabase(db: PGlite): SqlDatabase {
  const session = (tx: PGlite | Transaction): SqlSession => ({
    async query<T>(text: string, params: unknown[] = []) {
      return (await tx.query<T>(text, params)).rows;
    },
  });
  return {
    kind: "pglite",
    ...session(db),
    async exec(script) {
      await db.exec(script);
    },
    async execTransaction(script) {
      await db.transaction((tx) => tx.exec(script));
    },
    asRole(role, work) {
      const setRole = _roleStatement(role);
      return db.transaction(async (tx) => {
        await tx.exec(setRole);
        return await work(session(tx));
      });
    },
    queryAsRole<T>(role: string, text: string, params: unknown[] = []) {
      return this.asRole(role, (tx) => tx.query<T>(text, params));
    },
    // PGlite is one connection already
    withConnection(work) {
      return work({ ...session(db), transaction: (fn) => db.transaction((tx) => fn(session(tx))) });
    },
    close: () => db.close(),
  };
}

/** Wraps a postgres.js pool. */
export function postgresDatabase(sql: Sql): SqlDatabase {
  const session = (tx: Sql | TransactionSql): SqlSession => ({
    async query<T>(text: string, params: unknown[] = []) {
      // deno-lint-ignore no-explicit-any
      return [...await tx.unsafe(text, params as any[])] as T[];
    },
  });
  return {
    kind: "postgres",
    ...session(sql),
    async exec(script) {
      await sql.unsafe(script).simple();
    },
    async execTransaction(script) {
      await sql.begin((tx) => tx.unsafe(script).simple());
    },
    asRole(role, work) {
      const setRole = _roleStatement(role);
      return sql.begin(async (tx) => {
        await tx.unsafe(setRole);
        return await work(session(tx));
      }) as Promise<never>;
    },
    async queryAsRole<T>(role: string, text: string, params: unknown[] = []) {
      // begin, set local role, the statement and commit go out together on one reserved connection
      // (postgres.js pipelines them): one round trip instead of sql.begin's four. A failing statement
      // aborts the transaction, and the commit behind it then rolls back, leaving the connection idle.
      const setRole = _roleStatement(role);
      const connection = await sql.reserve();
      try {
        const steps = [
          connection.unsafe("begin"),
          connection.unsafe(setRole),
          // deno-lint-ignore no-explicit-any
          connection.unsafe(text, params as any[]),
          connection.unsafe("commit"),
        ];
        const settled = await Promise.allSettled(steps);
        const failed = settled.find((step) => step.status === "rejected");
        if (failed) throw (failed as PromiseRejectedResult).reason;
        return [...(settled[2] as PromiseFulfilledResult<Iterable<T>>).value];
      } finally {
        connection.release();
      }
    },
    async withConnection(work) {
      const reserved = await sql.reserve();
      const connection = session(reserved);
      try {
        return await work({
          ...connection,
          // a reserved connection has no begin(): the statements themselves, on this one connection
          async transaction(fn) {
            await reserved.unsafe("begin");
            try {
              const result = await fn(connection);
              await reserved.unsafe("commit");
              return result;
            } catch (error) {
              await reserved.unsafe("rollback").catch(() => {});
              throw error;
            }
          },
        });
      } finally {
        reserved.release();
      }
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
