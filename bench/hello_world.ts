/** The baseline: a hello-world Deno.serve on 127.0.0.1:$PORT. */
Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("PORT")), onListen: () => {} },
  () => new Response("hello"),
);
