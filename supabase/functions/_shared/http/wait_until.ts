/** Background work after the response: `EdgeRuntime.waitUntil` on Supabase, nothing to do elsewhere. */

declare const EdgeRuntime: { waitUntil(work: Promise<unknown>): void } | undefined;

/** Keeps `work` alive after the response where the runtime would otherwise stop it. */
export function defaultWaitUntil(work: Promise<unknown>): void {
  if (typeof EdgeRuntime !== "undefined") EdgeRuntime.waitUntil(work);
  // elsewhere (deno task dev) the process outlives the response anyway
}
