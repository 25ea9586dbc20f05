/**
 * Runs the tracking page's script without a browser: the page's own module script, given a document that
 * keeps only what the page may use (elements built with `createElement`, `textContent`, `href`, `rel`,
 * `replaceChildren`, `append`, `addEventListener`; no HTML parsing at all), the link's `location` and a `fetch`. What it rendered is read
 * back as lines of text, each link with its address.
 */

/** An element as the page builds it: text, attributes set as properties, children. */
export class PageElement {
  children: PageElement[] = [];
  href?: string;
  rel?: string;
  type?: string;
  disabled?: boolean;
  /** What the page listens for on the element, by event name. */
  listeners: Record<string, (() => unknown)[]> = {};
  #text = "";

  constructor(readonly tagName: string) {}

  get textContent(): string {
    return this.children.length > 0 ? this.children.map((child) => child.textContent).join("") : this.#text;
  }

  set textContent(value: string) {
    this.children = [];
    this.#text = String(value);
  }

  replaceChildren(...nodes: PageElement[]): void {
    this.#text = "";
    this.children = nodes;
  }

  append(...nodes: PageElement[]): void {
    this.children.push(...nodes);
  }

  addEventListener(event: string, listener: () => unknown): void {
    (this.listeners[event] ??= []).push(listener);
  }
}

/** The page's main element after its script ran on `pageUrl`, fetching through `fetchImpl`. */
export async function runPageScript(
  html: string,
  pageUrl: string,
  fetchImpl: typeof fetch,
): Promise<PageElement> {
  const script = /<script type="module">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (!script) throw new Error("the page has no module script");
  const main = new PageElement("main");
  const document = {
    getElementById: (id: string) => (id === "order" ? main : null),
    createElement: (tagName: string) => new PageElement(tagName),
  };
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  await new AsyncFunction("document", "location", "fetch", script)(document, new URL(pageUrl), fetchImpl);
  return main;
}

/** What the page shows, one line per element: `<tag> text`, a link as `<a href="…" rel="…"> text`. */
export function renderedLines(main: PageElement): string[] {
  if (main.children.length === 0) return [main.textContent];
  return main.children.map((element) =>
    element.tagName === "a"
      ? `<a href="${element.href}" rel="${element.rel ?? ""}"> ${element.textContent}`
      : `<${element.tagName}> ${element.textContent}`
  );
}
