/**
 * The local PostgREST stand-in behaves as Supabase's gateway and PostgREST do where a test could be misled:
 * the role comes from `Authorization` when it carries a project key, else from `apikey`; refused keys are a
 * 401; SQLSTATEs become PostgREST's HTTP statuses (its own table, `mapSQLtoHTTP` in `Error.hs`).
 */
import assert from "node:assert/strict";
import { createSigningKey, mintUserToken } from "../local/auth_keys.ts";
import { type KeyRoles, roleForRequest } from "../local/gateway_keys.ts";
import { createRpcRoute } from "../local/postgrest_rpc.ts";
import { statusForSqlState } from "../local/postgrest_status.ts";
import { testDatabases } from "./support/databases.ts";

const KEYS: KeyRoles = {
  anon: ["anon.jwt", "sb_publishable_a"],
  serviceRole: ["service.jwt", "sb_secret_s"],
};
const USER_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIiwicm9sZSI6ImF1dGhlbnRpY2F0ZWQifQ.sig";

Deno.test("roleForRequest() takes the role from Authorization when it carries a project key, else from apikey", async (t) => {
  const cases: [string, Record<string, string>, string][] = [
    ["service key in Authorization beats anon in apikey", {
      Authorization: "Bearer service.jwt",
      apikey: "anon.jwt",
    }, "service_role"],
    ["anon key in Authorization beats service in apikey", {
      Authorization: "Bearer anon.jwt",
      apikey: "sb_secret_s",
    }, "anon"],
    ["a user JWT in Authorization: apikey decides", {
      Authorization: `Bearer ${USER_JWT}`,
      apikey: "sb_publishable_a",
    }, "anon"],
    ["secret key in apikey alone", { apikey: "sb_secret_s" }, "service_role"],
    ["Bearer in lower case", { Authorization: "bearer sb_secret_s" }, "service_role"],
  ];
  for (const [name, headers, role] of cases) {
    await t.step(name, () => assert.deepEqual(roleForRequest(new Headers(headers), KEYS), { role }));
  }
});

Deno.test("roleForRequest() refuses unknown keys, and disabled legacy keys in either header", async (t) => {
  const disabled: KeyRoles = { ...KEYS, disabled: ["anon.jwt", "service.jwt"] };
  const cases: [string, KeyRoles, Record<string, string>, string][] = [
    ["no key", KEYS, {}, "Invalid API key"],
    ["unknown key", KEYS, { Authorization: "Bearer nope", apikey: "nope" }, "Invalid API key"],
    ["user JWT alone", KEYS, { Authorization: `Bearer ${USER_JWT}` }, "Invalid API key"],
    ["disabled service key in Authorization", disabled, {
      Authorization: "Bearer service.jwt",
      apikey: "sb_secret_s",
    }, "Legacy API keys are disabled"],
    ["disabled anon key in apikey", disabled, { apikey: "anon.jwt" }, "Legacy API keys are disabled"],
  ];
  for (const [name, keys, headers, refused] of cases) {
    await t.step(name, () => assert.deepEqual(roleForRequest(new Headers(headers), keys), { refused }));
  }
  assert.deepEqual(roleForRequest(new Headers({ apikey: "sb_secret_s" }), disabled), {
    role: "service_role",
  });
});

// [SQLSTATE, message, authenticated, PostgREST's status]
const STATUS_TABLE: [string, string, boolean, number][] = [
  ["40001", "could not serialize access", true, 500],
  ["40P01", "deadlock detected", true, 500],
  ["25006", "cannot execute INSERT in a read-only transaction", true, 405],
  ["25P02", "current transaction is aborted", true, 500],
  ["57P01", "terminating connection due to administrator command", true, 503],
  ["57014", "canceling statement due to statement timeout", true, 500],
  ["0L000", "invalid grantor", true, 403],
  ["0P000", "invalid role specification", true, 403],
  ["28000", "invalid authorization specification", true, 403],
  ["28P01", "password authentication failed", true, 403],
  ["08006", "connection failure", true, 503],
  ["53300", "too many connections", true, 503],
  ["53400", "configuration limit exceeded", true, 500],
  ["23505", "duplicate key value", true, 409],
  ["23503", "foreign key violation", true, 409],
  ["23514", "check constraint", true, 400],
  ["42501", "permission denied", false, 401],
  ["42501", "permission denied", true, 403],
  ["42883", "function public.nope() does not exist", true, 404],
  ["42P01", "relation does not exist", true, 404],
  ["P0001", "a plain raise", true, 400],
  ["P0002", "query returned no rows", true, 500],
  ["XX000", "internal error", true, 500],
  ["PT402", "payment required", true, 402],
  ["21000", "more than one row returned by a subquery", true, 500],
  ["21000", "DELETE requires a WHERE clause", true, 400],
  ["22023", 'role "ghost" does not exist', true, 401],
  ["22023", "invalid parameter value", true, 400],
  ["OCS04", "STORE_NOT_FOUND: our own code", true, 400],
];

Deno.test("statusForSqlState() answers PostgREST's status for each SQLSTATE row", async (t) => {
  for (const [code, message, authenticated, status] of STATUS_TABLE) {
    await t.step(`${code} (${authenticated ? "authenticated" : "anon"}) → ${status}`, () => {
      assert.equal(statusForSqlState(code, message, authenticated), status);
    });
  }
});

for (const { name, db } of await testDatabases()) {
  Deno.test({
    name: `[${name}] POST /rest/v1/rpc answers a raised SQLSTATE with PostgREST's status and error body`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      // a probe that raises the SQLSTATE it is given, callable by both API roles
      await db.exec(`
        create or replace function public.sqlstate_probe(p_code text) returns void
        language plpgsql set search_path = '' as $$
        begin raise exception using errcode = p_code, message = 'probe ' || p_code, detail = 'd', hint = 'h'; end $$;
        grant execute on function public.sqlstate_probe(text) to anon, service_role;`);
      const rpc = createRpcRoute(db, KEYS);
      const call = (code: string, key: string) =>
        rpc(
          new Request("http://stand-in/rest/v1/rpc/sqlstate_probe", {
            method: "POST",
            headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
            body: JSON.stringify({ p_code: code }),
          }),
          "sqlstate_probe",
        );
      try {
        for (
          const [code, key, status] of [
            ["40001", "sb_secret_s", 500],
            ["40P01", "sb_secret_s", 500],
            ["25006", "sb_secret_s", 405],
            ["57P01", "sb_secret_s", 503],
            ["28000", "sb_secret_s", 403],
            ["42501", "anon.jwt", 401],
            ["42501", "service.jwt", 403],
            ["OCR29", "service.jwt", 400],
          ] as const
        ) {
          await t.step(`${code} as ${key} → ${status}`, async () => {
            const res = await call(code, key);
            assert.equal(res.status, status);
            assert.deepEqual(await res.json(), { code, message: `probe ${code}`, details: "d", hint: "h" });
          });
        }
      } finally {
        await db.exec("drop function public.sqlstate_probe(text)");
      }
    },
  });

  Deno.test({
    name:
      `[${name}] POST /rest/v1/rpc runs a user's access token as authenticated with its claims, so auth.uid() is the user`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await db.exec(`
        create or replace function public.uid_probe() returns jsonb
        language sql set search_path = '' as $$ select jsonb_build_object('uid', auth.uid(), 'role', current_user) $$;
        grant execute on function public.uid_probe() to anon, authenticated;`);
      const signingKey = await createSigningKey();
      const rpc = createRpcRoute(db, KEYS, { signingKey });
      const call = async (authorization: string) => {
        const res = await rpc(
          new Request("http://stand-in/rest/v1/rpc/uid_probe", {
            method: "POST",
            headers: { apikey: "sb_publishable_a", Authorization: authorization },
            body: "{}",
          }),
          "uid_probe",
        );
        return { status: res.status, body: await res.json() };
      };
      try {
        const sub = crypto.randomUUID();
        assert.deepEqual(await call(`Bearer ${await mintUserToken(signingKey, { sub })}`), {
          status: 200,
          body: { uid: sub, role: "authenticated" },
        });
        assert.deepEqual(await call("Bearer anon.jwt"), { status: 200, body: { uid: null, role: "anon" } });
        const expired = await mintUserToken(signingKey, { sub, expiresIn: -1 });
        assert.equal((await call(`Bearer ${expired}`)).status, 401);
      } finally {
        await db.exec("drop function public.uid_probe()");
      }
    },
  });

  Deno.test({
    name:
      `[${name}] POST /rest/v1/rpc runs each API role under Supabase's statement timeout: anon 3 s, service_role 8 s`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await db.exec(`
        create or replace function public.statement_timeout_probe() returns text
        language sql set search_path = '' as $$ select current_setting('statement_timeout') $$;
        grant execute on function public.statement_timeout_probe() to anon, service_role;`);
      const rpc = createRpcRoute(db, KEYS);
      const timeoutFor = async (key: string) => {
        const res = await rpc(
          new Request("http://stand-in/rest/v1/rpc/statement_timeout_probe", {
            method: "POST",
            headers: { apikey: key, "Content-Type": "application/json" },
            body: "{}",
          }),
          "statement_timeout_probe",
        );
        assert.equal(res.status, 200);
        return await res.json();
      };
      try {
        // above the functions' default DATABASE_TIMEOUT_MS (6000), so their own budget fires first
        assert.deepEqual([await timeoutFor("sb_publishable_a"), await timeoutFor("sb_secret_s")], [
          "3s",
          "8s",
        ]);
      } finally {
        await db.exec("drop function public.statement_timeout_probe()");
      }
    },
  });
}
