import { h } from './dom.js';

function inline(text: string): (Node | string)[] {
  // `code` and **bold**, everything else as text (no HTML is ever parsed).
  const out: (Node | string)[] = [];
  const re = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[1] !== undefined ? h('code', null, m[1]) : h('strong', null, m[2]));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A small, safe subset of Markdown: paragraphs, fenced code, `> ` quotes, `- ` lists, inline code and bold. */
export function renderMarkdown(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith('```')) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].startsWith('```')) body.push(lines[i++]);
      i++;
      frag.append(h('pre', null, h('code', null, body.join('\n'))));
    } else if (line.startsWith('>')) {
      const body: string[] = [];
      while (i < lines.length && lines[i].startsWith('>')) body.push(lines[i++].replace(/^>\s?/, ''));
      frag.append(h('blockquote', null, ...body.flatMap((l, k) => (k > 0 ? [h('br'), ...inline(l)] : inline(l)))));
    } else if (/^[-*] /.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^[-*] /.test(lines[i])) items.push(lines[i++].slice(2));
      frag.append(h('ul', null, ...items.map((item) => h('li', null, ...inline(item)))));
    } else if (line.trim() === '') {
      i++;
    } else {
      const body: string[] = [];
      while (i < lines.length && lines[i].trim() !== '' && !/^(```|>|[-*] )/.test(lines[i])) body.push(lines[i++]);
      frag.append(h('p', null, ...body.flatMap((l, k) => (k > 0 ? [h('br'), ...inline(l)] : inline(l)))));
    }
  }
  return frag;
}
