import { convert } from 'html-to-text';

/** How `web_fetch` renders HTML: Markdown-ish (headings, links kept) or plain text. */
export type ExtractMode = 'markdown' | 'text';

const SKIPPED = ['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'nav', 'footer', 'form', 'button'];

/**
 * The readable text of an HTML page, with the page title first. Scripts, styles, navigation and
 * forms are dropped; `markdown` keeps `#` headings and `[text](url)` links, `text` drops both
 * decorations. Pure; never throws on malformed HTML (the parser is forgiving).
 */
export function htmlToReadableText(html: string, mode: ExtractMode): { title: string; text: string } {
  const titleMatch = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = titleMatch ? convert(titleMatch[1], { wordwrap: false }).trim() : '';
  const markdown = mode === 'markdown';
  const heading = (prefix: string) => ({
    format: markdown ? 'headingMd' : 'block',
    options: { prefix, leadingLineBreaks: 2, trailingLineBreaks: 1 },
  });
  const text = convert(html, {
    wordwrap: false,
    baseElements: { selectors: ['main', 'article', 'body'], returnDomByDefault: true },
    formatters: {
      headingMd: (elem, walk, builder, formatOptions) => {
        builder.openBlock({ leadingLineBreaks: formatOptions.leadingLineBreaks ?? 2 });
        builder.addInline(`${String((formatOptions as { prefix?: string }).prefix ?? '#')} `);
        walk(elem.children, builder);
        builder.closeBlock({ trailingLineBreaks: formatOptions.trailingLineBreaks ?? 1 });
      },
      anchorMd: (elem, walk, builder) => {
        const href = typeof elem.attribs?.href === 'string' ? elem.attribs.href.trim() : '';
        if (!href || href.startsWith('#') || href.toLowerCase().startsWith('javascript:')) {
          walk(elem.children, builder);
          return;
        }
        builder.addInline('[');
        walk(elem.children, builder);
        builder.addInline(`](${href})`);
      },
    },
    selectors: [
      ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
      { selector: 'img', format: 'skip' },
      { selector: 'h1', ...heading('#') },
      { selector: 'h2', ...heading('##') },
      { selector: 'h3', ...heading('###') },
      { selector: 'h4', ...heading('####') },
      { selector: 'h5', ...heading('#####') },
      { selector: 'h6', ...heading('######') },
      markdown ? { selector: 'a', format: 'anchorMd' } : { selector: 'a', options: { ignoreHref: true } },
    ],
  });
  return { title, text: text.replace(/\n{3,}/g, '\n\n').trim() };
}
