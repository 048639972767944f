/**
 * Inline SVG for the pages' small charts, built with DOM APIs like ../probe/dom's h(): text only
 * ever goes in as text nodes, and no `on*` or `style` attribute is set (the CSP allows neither).
 */
const NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string | null)[]): SVGElement {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (/^on/i.test(name) || name === 'style' || name === 'href' || name === 'xlink:href') throw new Error(`svg(): refusing attribute ${name}`);
    el.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null) el.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  return el;
}

/** A tooltip for an SVG shape (what the point is, as text). */
export function tip(text: string): SVGElement {
  return svg('title', {}, text);
}
