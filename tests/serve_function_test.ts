import assert from "node:assert/strict";
import { type Access, serveFunction } from "../supabase/functions/_shared/http/serve_function.ts";
import { capturingLogger } from "./support/log_capture.ts";

const KEYS = { public: ["anon-key"], service: ["service-key"] };

function frame(
  options: { access?: Access; methods?: string[]; bodyTimeoutMs?: number; echo?: boolean } = {},
) {
  const log = capturingLogger();
  const handle = serveFunction({
    name: "test_fn",
    methods: options.methods ?? ["POST"],
    access: options.access ?? "project",
    config: { apiKeys: KEYS, allowedOrigins: ["*"] },
    log,
    newRequestId: () => "req-1",
    bodyLimits: { timeoutMs: options.bodyTimeoutMs ?? 10_000 },
    handle: async (context) => {
      const text = options.echo === false ? "" : await context.readBody();
      context.annotate({ orderId: "o1" });
      return { status: 200, body: { text } };
    },
  });
  return { handle, log };
}

function post(headers: Record<string, string>, body: BodyInit | null = "{}", method = "POST") {
  return new Request("http://localhost/functions/v1/test", { method, headers, body });
}

Deno.test("serveFunction() answers 405 with every served method in Allow", async () => {
  const { handle } = frame({ methods: ["GET"] });
  const response = await handle(post({}, null, "POST"));
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "GET, OPTIONS");
  assert.equal((await response.json()).error.code, "METHOD_NOT_ALLOWED");
});

Deno.test("serveFunction() for a service function answers 401 to the public key and 200 to the secret one", async () => {
  const { handle } = frame({ access: "service" });
  const refused = await handle(post({ Authorization: "Bearer anon-key" }));
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("www-authenticate"), "Bearer");
  assert.equal(refused.headers.get("access-control-allow-origin"), "*");
  assert.equal((await handle(post({ apikey: "service-key" }))).status, 200);
});

Deno.test("serveFunction() with access none leaves authentication to the function", async () => {
  const { handle } = frame({ access: "none" });
  assert.equal((await handle(post({}))).status, 200);
});

Deno.test("serveFunction() exposes x-request-id, retry-after and idempotent-replayed to pages, on errors too", async () => {
  const { handle } = frame();
  for (const response of [await handle(post({ apikey: "anon-key" })), await handle(post({}))]) {
    assert.equal(
      response.headers.get("access-control-expose-headers"),
      "x-request-id, retry-after, idempotent-replayed",
    );
    assert.equal(response.headers.get("x-request-id"), "req-1");
    await response.body?.cancel();
  }
});

Deno.test("serveFunction() answers 408 REQUEST_TIMEOUT for a body that has not arrived within the limit", async () => {
  const { handle, log } = frame({ bodyTimeoutMs: 50 });
  let cancelled = false;
  const never = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"storeId":'));
    },
    cancel() {
      cancelled = true;
    },
  });
  const response = await handle(post({ apikey: "anon-key" }, never));
  assert.equal(response.status, 408);
  assert.equal((await response.json()).error.code, "REQUEST_TIMEOUT");
  assert.equal(cancelled, true);
  assert.equal(JSON.parse(log.lines[0]).status, 408);
});

Deno.test("serveFunction() logs one line with the function's event, status and annotations", async () => {
  const { handle, log } = frame();
  await handle(post({ apikey: "anon-key" }));
  assert.equal(log.lines.length, 1);
  const line = JSON.parse(log.lines[0]);
  assert.deepEqual(
    {
      event: line.event,
      requestId: line.requestId,
      method: line.method,
      status: line.status,
      id: line.orderId,
    },
    { event: "test_fn", requestId: "req-1", method: "POST", status: 200, id: "o1" },
  );
});

Deno.test("serveFunction() logs a client that disconnects mid-body as 499, never as a server error", async () => {
  const { handle, log } = frame();
  const served = Promise.withResolvers<void>();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (request, info) => {
    try {
      return await handle(request, info);
    } finally {
      served.resolve();
    }
  });
  try {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await connection.write(new TextEncoder().encode(
      'POST /functions/v1/test HTTP/1.1\r\nHost: x\r\napikey: anon-key\r\nContent-Length: 1000\r\n\r\n{"a":',
    ));
    await new Promise((resolve) => setTimeout(resolve, 50));
    connection.close();
    await served.promise;
  } finally {
    await server.shutdown();
  }
  assert.equal(log.lines.length, 1);
  const line = JSON.parse(log.lines[0]);
  assert.equal(line.status, 499);
  assert.equal(line.code, undefined);
  assert.equal(line.error, undefined);
});
