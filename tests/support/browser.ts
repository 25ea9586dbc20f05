/**
 * Headless Chromium for the page tests, driven by puppeteer-core: whether it is installed (`CHROMIUM`,
 * default /usr/bin/chromium, and the flags it runs with are chromium.ts's; the tests are skipped with a
 * notice where it is not), a browser with a throwaway profile that reaches nothing but loopback, and where
 * screenshots go: docs/ (the pictures of the README and docs/integrate.md) with UPDATE_SCREENSHOTS=1, else .local/screenshots/, so that
 * a run of the suite changes no file.
 */
import puppeteer, { type Page } from "puppeteer-core";
import { CHROMIUM, CHROMIUM_FLAGS } from "./chromium.ts";

/** Whether {@linkcode CHROMIUM} exists; prints the notice of a skipped `test` when it does not. */
export async function chromiumInstalled(test: string): Promise<boolean> {
  const installed = await Deno.stat(CHROMIUM).then(() => true, () => false);
  if (!installed) {
    console.log(`notice: no Chromium at ${CHROMIUM}: ${test} is skipped (apt-get install chromium)`);
  }
  return installed;
}

const _SCREENSHOTS = Deno.env.get("UPDATE_SCREENSHOTS") === "1" ? "../../docs/" : "../../.local/screenshots/";

/** The path a screenshot named `name` is written to (its folder made). */
export async function screenshotPath(name: string): Promise<string> {
  const folder = new URL(_SCREENSHOTS, import.meta.url);
  await Deno.mkdir(folder, { recursive: true });
  return new URL(name, folder).pathname;
}

/** Runs `fn` with a new page of a fresh headless Chromium, then closes both; `errors` collects the page's. */
export async function withPage(fn: (page: Page, errors: string[]) => Promise<void>): Promise<void> {
  const profile = await Deno.makeTempDir();
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 820, height: 900 });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await fn(page, errors);
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

/** The text of the element `selector` as the reader sees it, runs of white space made one space. */
export function visibleText(page: Page, selector: string): Promise<string> {
  // runs in the page: typed by hand, as Deno's own types have no DOM
  return page.$eval(
    selector,
    (node) => (node as unknown as { innerText: string }).innerText.replace(/\s+/g, " ").trim(),
  );
}

/** The texts of every element `selector` matches, as {@linkcode visibleText}. */
export function visibleTexts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(
    selector,
    (nodes) =>
      nodes.map((node) => (node as unknown as { innerText: string }).innerText.replace(/\s+/g, " ").trim()),
  );
}

/** How far the page is wider than its viewport, in CSS pixels: 0 when nothing scrolls sideways. */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as {
      document: { documentElement: { scrollWidth: number; clientWidth: number } };
    }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}
