/**
 * Runs the tracking page's script without a browser: the page's own module script, given a document that
 * keeps only what the page may use (elements built with `createElement`, properties set on them such as
 * `textContent`, `className`, `href`, `rel`; `replaceChildren` and `append` of elements and text;
 * `addEventListener`; no HTML parsing at all), the link's `location` and a `fetch`. What it rendered is
 * read back as lines of text, each link with its address.
 */

/** An element as the page builds it: properties as set, children elements and text. */
export class PageElement {
  children: (PageElement | string)[] = [];
  id?: string;
  className?: string;
  href?: string;
  rel?: string;
  type?: string;
  disabled?: boolean;
  dateTime?: string;
  /** What the page listens for on the element, by event name. */
  listeners: Record<string, (() => unknown)[]> = {};

  constructor(readonly tagName: string) {}

  get textContent(): string {
    return this.children.map((child) => typeof child === "string" ? child : child.textContent).join("");
  }

  set textContent(value: string) {
    this.children = [String(value)];
  }

  replaceChildren(...nodes: (PageElement | string)[]): void {
    this.children = nodes.map(_node);
  }

  append(...nodes: (PageElement | string)[]): void {
    this.children.push(...nodes.map(_node));
  }

  addEventListener(event: string, listener: () => unknown): void {
    (this.listeners[event] ??= []).push(listener);
  }

  /** The elements under this one, depth first. */
  *descendants(): Generator<PageElement> {
    for (const child of this.children) {
      if (typeof child === "string") continue;
      yield child;
      yield* child.descendants();
    }
  }

  /** The element under this one with `id`; throws when there is none. */
  byId(id: string): PageElement {
    const found = [...this.descendants()].find((element) => element.id === id);
    if (!found) throw new Error(`no element #${id}`);
    return found;
  }
}

// the DOM takes any value as text: so does this one, so that a page that passes a number is not hidden
function _node(node: PageElement | string): PageElement | string {
  return node instanceof PageElement ? node : String(node);
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
    title: "",
    getElementById: (id: string) => (id === "order" ? main : null),
    createElement: (tagName: string) => new PageElement(tagName),
  };
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  await new AsyncFunction("document", "location", "fetch", script)(document, new URL(pageUrl), fetchImpl);
  return main;
}

/**
 * What the page shows, one line per element that holds text of its own: `<tag> text` (its whole text), a
 * link as `<a href="…" rel="…"> text`. An element that only groups others (a table row, a section) has no
 * line; `root` itself has one when it holds text.
 */
export function renderedLines(root: PageElement): string[] {
  return [root, ...root.descendants()]
    .filter((element) => element.children.some((child) => typeof child === "string"))
    .map((element) =>
      element.tagName === "a"
        ? `<a href="${element.href}" rel="${element.rel ?? ""}"> ${element.textContent}`
        : `<${element.tagName}> ${element.textContent}`
    );
}
