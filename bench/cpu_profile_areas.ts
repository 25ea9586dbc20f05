/**
 * A V8 CPU profile (`deno run --cpu-prof`) of the create-order function, summed by what the function was
 * doing: each sample goes to the first area, from the sampled frame outwards, whose source it is in.
 * Frames after an `await` lose their callers in a profile, so fetch and HTTP work resumed from the event
 * loop lands in "runtime" rather than under the step that started it.
 */

/** Areas of the function, matched against a frame's URL, first match wins. */
const AREAS: [string, RegExp][] = [
  ["tracking token (HMAC)", /orders\/tracking_token\.ts/],
  [
    "e-mail rendering",
    /email\/(email_templates|status_email_templates|email_html|email_items|email_text|email_safety|money_format|payment_wording|render_outbox_email)\.ts/,
  ],
  ["sending through the Resend SDK", /email\/resend_mailer\.ts|\/resend\//],
  ["recording e-mail results (RPC)", /email\/(coalesced_email_outbox|supabase_email_outbox)\.ts/],
  ["the create_order RPC (supabase-js)", /orders\/(supabase_order_store|database_call)\.ts|postgrest-js/],
  ["request schema (zod)", /create-order\/request_schema\.ts|\/zod\//],
  ["frame: body, JSON, key, log line", /_shared\/http\//],
  ["handler's own steps", /create-order\/handler\.ts|orders\/money\.ts|auth\/signed_in_buyer\.ts/],
  ["sender orchestration", /email\/(outbox_sender|email_delivery|send_retry)\.ts/],
];

interface _Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Share of the busy (not idle) samples per area, largest first, and the busy milliseconds. */
export function profileAreas(
  profile: { nodes: _Node[]; samples: number[]; timeDeltas: number[] },
): { busyMs: number; areas: [string, number][] } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const name = nodes.get(id)!.callFrame.functionName;
    if (name === "(idle)") return;
    const delta = profile.timeDeltas[i] ?? 0;
    busy += delta;
    let area = name === "(garbage collector)" ? "garbage collector" : undefined;
    for (let frame: number | undefined = id; !area && frame !== undefined; frame = parent.get(frame)) {
      const url = nodes.get(frame)!.callFrame.url;
      area = AREAS.find(([, pattern]) => pattern.test(url))?.[0];
    }
    area ??= "runtime (Deno.serve, fetch internals, timers)";
    totals.set(area, (totals.get(area) ?? 0) + delta);
  });
  return {
    busyMs: busy / 1000,
    areas: [...totals].map(([area, t]): [string, number] => [area, t / busy]).sort((a, b) => b[1] - a[1]),
  };
}
