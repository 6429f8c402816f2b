/** Small DOM helpers: building elements, the page's live region and its alert. */

type Props = Record<string, string | number | boolean | undefined>;

/** An element with attributes (undefined and false skip one) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  appendSpaced(element, ...children);
  return element;
}

/**
 * Appends with a space between children, as markup written by hand has: the text reads "Done
 * Download a.jpg", not "DoneDownload a.jpg" (flex and grid containers do not render the space).
 */
export function appendSpaced(parent: Element, ...children: (Node | string | null | undefined)[]): void {
  for (const child of children) {
    if (child == null || child === '') continue;
    if (parent.childNodes.length > 0) parent.append(' ');
    parent.append(child);
  }
}

export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

let uniqueId = 0;
/** An id no other element of the page has. */
export function newId(prefix: string): string {
  uniqueId += 1;
  return `${prefix}-${uniqueId}`;
}

/** The one polite live region: progress summaries, not every percent. */
export function announce(text: string): void {
  byId('status').textContent = text;
}

/** A blocking problem (role=alert); hidden when there is none so it is not an empty landmark. */
export function alertUser(text: string): void {
  const box = byId('alert');
  box.textContent = text;
  box.hidden = text === '';
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Saves a Blob under a name through a temporary link (the object URL is freed afterwards). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
