/**
 * Orders with outbox rows in a real database, and the PostgREST stand-in served on its own port so the
 * senders reach the outbox through supabase-js exactly as deployed.
 */
import { createRpcRoute } from "../../local/postgrest_rpc.ts";
import type { SqlDatabase } from "../../local/sql_database.ts";
import { createDatabaseClient } from "../../supabase/functions/_shared/database_client.ts";
import type {
  ClaimedEmails,
  ClaimOptions,
  EmailOutbox,
} from "../../supabase/functions/_shared/email/email_outbox.ts";
import type { OutboxEmail } from "../../supabase/functions/_shared/email/order_email.ts";
import { supabaseEmailOutbox } from "../../supabase/functions/_shared/email/supabase_email_outbox.ts";
import type { TestStore } from "./catalogue.ts";

const SERVICE_KEY = "outbox-test-service-key";

/** The RPC route of `db` on a free port, and an EmailOutbox over supabase-js pointed at it. */
export function serveOutbox(db: SqlDatabase) {
  const rpc = createRpcRoute(db, { anon: [], serviceRole: [SERVICE_KEY] });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    const match = /^\/rest\/v1\/rpc\/([^/]+)$/.exec(new URL(request.url).pathname);
    return match ? rpc(request, match[1]) : new Response("no route", { status: 404 });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const client = createDatabaseClient(url, SERVICE_KEY);
  return {
    url,
    serviceKey: SERVICE_KEY,
    outbox: supabaseEmailOutbox(client),
    close: () => server.shutdown(),
  };
}

/** The seed store (supabase/seed.sql) in the shape of a test store, as far as orders need it. */
export const SEED_STORE: Pick<TestStore, "storeId" | "products" | "variants"> = {
  storeId: "11111111-1111-4111-8111-111111111111",
  products: [
    { id: "aaaaaaaa-0001-4000-8000-000000000001", name: "Assam Tea 250 g", price: 349 },
    { id: "aaaaaaaa-0002-4000-8000-000000000002", name: "Masala Chai Mix 100 g", price: 199.5 },
    { id: "aaaaaaaa-0003-4000-8000-000000000003", name: "Steel Tumbler", price: 250 },
  ],
  variants: [
    { id: "bbbbbbbb-0001-4000-8000-000000000001", name: "Small 200 ml", price: 250 },
    { id: "bbbbbbbb-0002-4000-8000-000000000002", name: "Large 400 ml", price: 299 },
  ],
};

/** Creates one upi_direct order of `store` through create_order; returns the two claimed e-mails. */
export async function createOrderWithEmails(
  db: SqlDatabase,
  store: Pick<TestStore, "storeId" | "products" | "variants"> = SEED_STORE,
): Promise<OutboxEmail[]> {
  const payload = {
    storeId: store.storeId,
    orderedAt: new Date().toISOString(),
    buyer: {
      email: `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`,
      name: "Asha Rao",
      phone: "+919876543210",
    },
    shippingAddress: {
      line1: "12 MG Road",
      line2: null,
      city: "Bengaluru",
      state: "Karnataka",
      postalCode: "560001",
      country: "IN",
    },
    paymentMethod: "upi_direct",
    gatewayMethod: null,
    paymentProofUrl: "https://proofs.example.com/1.png",
    clientIp: null,
    items: [
      { productId: store.products[0].id, variantId: null, quantity: 2, unitPriceMinor: 34900 },
      {
        productId: store.products[2].id,
        variantId: store.variants[1].id,
        quantity: 1,
        unitPriceMinor: 29900,
      },
    ],
    totalMinor: 99700,
    feeMinor: 0,
    finalMinor: 99700,
    rateLimits: { ipLimit: 0, ipWindowSeconds: 3600, emailLimit: 0, emailWindowSeconds: 3600 },
  };
  const [row] = await db.asRole(
    "service_role",
    (s) => s.query<{ result: string }>("select public.create_order($1::jsonb)::text as result", [payload]),
  );
  return (JSON.parse(row.result) as { emails: OutboxEmail[] }).emails;
}

/** The outbox rows of some orders, by kind within order. */
export function outboxRows(db: SqlDatabase, orderIds: string[]) {
  return db.query<
    {
      order_id: string;
      kind: string;
      status: string;
      attempts: number;
      last_error: string | null;
      provider_id: string | null;
    }
  >(
    `select order_id::text, kind, status, attempts, last_error, provider_id from public.email_outbox
     where order_id = any($1::uuid[]) order by order_id, kind`,
    [orderIds],
  );
}

/** A claim of everything due now, each claim holding for a minute: no row is claimed twice by one call. */
export const CLAIM_NOW = {
  batchLimit: 100,
  aloneLimit: 100,
  minAgeSeconds: 0,
  staleAfterSeconds: 0,
  claimMs: 60_000,
};

/**
 * Claims until nothing is due (each claim takes one kind of request: a batch, or rows to send alone), and
 * answers every row claimed and superseded. The file's other tests may have left rows due: filter by order.
 */
export async function claimAll(
  outbox: EmailOutbox,
  options: Partial<ClaimOptions> = {},
): Promise<ClaimedEmails> {
  const all: ClaimedEmails = { emails: [], superseded: [] };
  for (let round = 0; round < 50; round++) {
    const claimed = await outbox.claimDue({ ...CLAIM_NOW, ...options });
    all.emails.push(...claimed.emails);
    all.superseded.push(...claimed.superseded);
    if (claimed.emails.length === 0) break;
  }
  return all;
}
