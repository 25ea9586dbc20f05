/**
 * Where headless Chromium is and the flags it runs with on this machine, for the page tests
 * (tests/support/browser.ts) and docs/render_email_screenshots.ts alike. No puppeteer here: the screenshot
 * script runs the binary itself.
 */

/** The Chromium binary the page tests drive. */
export const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";

/**
 * The flags every headless Chromium of ours runs with on this machine (the page tests, and
 * docs/render_email_screenshots.ts): no sandbox (it runs as root in a container), no GPU, and nothing
 * that reaches beyond loopback on its own (QUIC, first-run, background networking, component updates,
 * sync). A `--user-data-dir` of its own goes beside them.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
