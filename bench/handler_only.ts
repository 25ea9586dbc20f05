/**
 * The handler alone: the real create-order handler (key check, body limit, JSON, schema, fees, JSON
 * answer, one log line) over an in-memory OrderStore that answers at once, on 127.0.0.1:$PORT.
 * Against hello_world.ts it shows what our own code costs per request.
 */
import { parseConfig } from "../supabase/functions/_shared/config.ts";
import { jsonLogger } from "../supabase/functions/_shared/http/log.ts";
import { fromMinorUnits } from "../supabase/functions/_shared/orders/money.ts";
import type { OrderStore } from "../supabase/functions/_shared/orders/order_store.ts";
import { createOrderHandler } from "../supabase/functions/create-order/handler.ts";

const sequences = new Map<string, number>();
const memoryStore: OrderStore = {
  createOrder(payload) {
    const sequence = (sequences.get(payload.storeId) ?? 0) + 1;
    sequences.set(payload.storeId, sequence);
    return Promise.resolve({
      replayed: false,
      emails: [],
      response: {
        success: true,
        orderId: crypto.randomUUID(),
        orderNumber: `ORD-${payload.orderedAt.slice(0, 4)}-${String(sequence).padStart(6, "0")}`,
        totalAmount: fromMinorUnits(payload.totalMinor),
        checkoutFee: fromMinorUnits(payload.feeMinor),
        finalAmount: fromMinorUnits(payload.finalMinor),
        status: "payment_pending",
      },
    });
  },
};

const handler = createOrderHandler({
  config: parseConfig(Deno.env.toObject()),
  clock: () => new Date(),
  orders: memoryStore,
  verifyUserToken: () => Promise.resolve(null),
  sendOrderEmails: () => Promise.resolve(),
  waitUntil: () => {},
  log: jsonLogger(),
});
Deno.serve({ hostname: "127.0.0.1", port: Number(Deno.env.get("PORT")), onListen: () => {} }, handler);
