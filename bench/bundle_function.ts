/**
 * The create-order function as one JavaScript file, made with `deno bundle` (esbuild): npm packages
 * bundled in, dynamic imports inlined, for Deno. Closer to what Supabase deploys (an eszip of the
 * function's module graph) than running the TypeScript sources, whose modules load one by one.
 */

/** The `deno bundle` arguments for the function's entry point (the command line the report shows). */
export const BUNDLE_ARGS = [
  "bundle",
  "--platform=deno",
  "--packages=bundle",
  "--quiet",
  "supabase/functions/create-order/index.ts",
];

/** Bundles the function into `dir`; returns the file's path and size in bytes. */
export async function bundleFunction(dir: string): Promise<{ path: string; bytes: number }> {
  const path = `${dir}/create_order_bundle.js`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...BUNDLE_ARGS, `--output=${path}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno bundle failed (${output.code}): ${new TextDecoder().decode(output.stderr).slice(-2000)}`,
    );
  }
  return { path, bytes: (await Deno.stat(path)).size };
}
