/** A child accepted by {@link h}: nodes, text, or nothing (skipped). */
export type Child = Node | string | number | null | undefined | false;

/**
 * Creates an element. `props` keys starting with `on` add listeners; `class`, `dataset` and
 * `style` (a string) are handled; anything else is set as an attribute. Text children are
 * inserted as text nodes (never parsed as HTML).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, unknown> | null = null, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
    else if (key === 'class') el.className = String(value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'value' && 'value' in el) (el as unknown as { value: string }).value = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(el, child);
    else if (child === null || child === undefined || child === false) continue;
    else el.append(typeof child === 'number' ? String(child) : child);
  }
}

/** Formats a token count: 1234 → "1,234". */
export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
