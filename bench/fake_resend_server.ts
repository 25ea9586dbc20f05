/**
 * A minimal fake Resend for load: POST /emails answers {"id"} and POST /emails/batch {"data":[{"id"}]},
 * remembering nothing, so its memory stays flat however many orders go by. Listens on 127.0.0.1:$PORT.
 */
let sent = 0;
Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("PORT")), onListen: () => {} },
  async (request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/__stats") return Response.json({ sent });
    if (request.method !== "POST") return Response.json({ message: "not found" }, { status: 404 });
    const body = await request.json().catch(() => null);
    if (path === "/emails") {
      sent++;
      return Response.json({ id: crypto.randomUUID() });
    }
    if (path === "/emails/batch" && Array.isArray(body)) {
      sent += body.length;
      return Response.json({ data: body.map(() => ({ id: crypto.randomUUID() })) });
    }
    return Response.json({ message: "not found" }, { status: 404 });
  },
);
