import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { ConfigurationError, MODEL_ERROR_NOTE, TURN_INTERRUPTED_NOTE, ValidationError } from '@nanobot/schema';
import {
  ContextBuilder,
  LEGACY_SOUL_TEMPLATE,
  RUNTIME_CONTEXT_FOOTER,
  RUNTIME_CONTEXT_HEADER,
  SECTION_SEPARATOR,
  TOOL_CONTRACT,
  WORKSPACE_TEMPLATES,
  formatRuntimeContextLines,
  syncWorkspaceTemplates,
} from './index.js';

let ws: string;
const put = (rel: string, text: string) => {
  const path = join(ws, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const builder = (extra: Partial<ConstructorParameters<typeof ContextBuilder>[0]> = {}) =>
  new ContextBuilder({ workspace: ws, runtime: 'Linux x86_64, Node v20.0.0', platform: 'posix', skillEnvironment: { env: {}, hasBinary: () => true }, ...extra });
const skill = (dir: string, front: string, body = `Body of ${dir}.`) => put(`skills/${dir}/SKILL.md`, `---\n${front}\n---\n\n${body}\n`);
const history = (entries: object[]) => put('memory/history.jsonl', entries.map((e) => JSON.stringify(e)).join('\n') + '\n');

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'nb-ctx-'));
});

describe('buildSystemPrompt: sections and order', () => {
  it('emits every section in the reference order, joined by the --- separator', async () => {
    put('AGENTS.md', 'Project rules: use pnpm.');
    put('SOUL.md', 'I am a careful bot.');
    put('USER.md', 'Name: Ada');
    put('memory/MEMORY.md', 'User likes tea.');
    skill('always-on', 'name: always-on\ndescription: Always there\nalways: true', 'ALWAYS BODY');
    skill('weather', 'name: weather\ndescription: Get the weather');
    history([{ cursor: 1, timestamp: '2026-01-01 10:00', content: '- [durable] likes tea', session_key: 'cli:direct' }]);
    const sections = await builder().buildSystemPromptSections({
      channel: 'cli',
      sessionKey: 'cli:direct',
      sessionSummary: { text: 'Earlier we talked.', lastActive: '2026-01-01T10:00' },
    });
    expect(sections.map((s) => s.name)).toEqual([
      'identity',
      'bootstrap',
      'tool_contract',
      'memory',
      'active_skills',
      'skills',
      'recent_history',
      'archived_summary',
    ]);
    const prompt = await builder().buildSystemPrompt({
      channel: 'cli',
      sessionKey: 'cli:direct',
      sessionSummary: { text: 'Earlier we talked.', lastActive: '2026-01-01T10:00' },
    });
    expect(prompt).toBe(sections.map((s) => s.text).join(SECTION_SEPARATOR));
    expect(SECTION_SEPARATOR).toBe('\n\n---\n\n');
    const byName = Object.fromEntries(sections.map((s) => [s.name, s.text]));
    expect(byName.bootstrap).toBe('## AGENTS.md\n\nProject rules: use pnpm.\n\n## SOUL.md\n\nI am a careful bot.\n\n## USER.md\n\nName: Ada');
    expect(byName.tool_contract).toBe(TOOL_CONTRACT);
    expect(byName.memory).toBe('# Memory\n\n## Long-term Memory\nUser likes tea.');
    expect(byName.active_skills).toBe('# Active Skills\n\n### Skill: always-on\n\nALWAYS BODY');
    expect(byName.skills).toContain('### Workspace skills (`skills`)\n- **weather** — Get the weather  `weather/SKILL.md`');
    expect(byName.skills).not.toContain('always-on');
    expect(byName.recent_history).toBe('# Recent History\n\n- [2026-01-01 10:00] - [durable] likes tea');
    expect(byName.archived_summary).toBe(
      '[Archived Context Summary]\n\nPrevious conversation summary (last active 2026-01-01T10:00):\nEarlier we talked.',
    );
  });

  it('an empty workspace gives identity and tool contract only', async () => {
    const sections = await builder().buildSystemPromptSections();
    expect(sections.map((s) => s.name)).toEqual(['identity', 'tool_contract']);
  });

  it('identity carries runtime, workspace layout, platform policy, channel hint and external-content rules', async () => {
    const [identity] = await builder().buildSystemPromptSections({ channel: 'telegram' });
    expect(identity.text).toContain('## Runtime\nLinux x86_64, Node v20.0.0');
    expect(identity.text).toContain('memory/history.jsonl');
    expect(identity.text).toContain('managed by Dream — do not edit directly');
    expect(identity.text).toContain('## Platform Policy (POSIX)');
    expect(identity.text).toContain('## Format Hint\nThis conversation is in a messaging app');
    expect(identity.text).toContain('## External Content');
    const [win] = await builder({ platform: 'windows' }).buildSystemPromptSections({ channel: 'slack' });
    expect(win.text).toContain('## Platform Policy (Windows)');
    expect(win.text).not.toContain('## Format Hint');
  });

  it.each([
    ['whatsapp', 'plain text only'],
    ['sms', 'plain text only'],
    ['email', 'email'],
    ['cli', 'terminal'],
    ['mochat', 'terminal'],
    ['discord', 'messaging app'],
    ['qq', 'messaging app'],
  ])('format hint for %s', async (channel, words) => {
    const [identity] = await builder().buildSystemPromptSections({ channel });
    expect(identity.text).toContain(words);
  });

  it('uses absolute agent paths when the project workspace differs', async () => {
    const project = mkdtempSync(join(tmpdir(), 'nb-proj-'));
    writeFileSync(join(project, 'AGENTS.md'), 'project agents');
    put('AGENTS.md', 'agent-workspace agents (ignored: AGENTS.md comes from the project)');
    skill('s1', 'name: s1\ndescription: one');
    const sections = await builder().buildSystemPromptSections({ workspace: project });
    const identity = sections[0].text;
    expect(identity).toContain(`Project workspace: ${project}`);
    expect(identity).toContain(`${ws}/memory/MEMORY.md`);
    expect(sections.find((s) => s.name === 'bootstrap')!.text).toBe('## AGENTS.md\n\nproject agents');
    expect(sections.find((s) => s.name === 'skills')!.text).toContain(`### Workspace skills (\`${join(ws, 'skills')}\`)`);
  });
});

describe('template-content detection', () => {
  it('skips AGENTS.md and USER.md equal (trimmed) to the shipped templates, keeps an unedited SOUL.md', async () => {
    put('AGENTS.md', `\n${WORKSPACE_TEMPLATES['AGENTS.md']}\n\n`);
    put('USER.md', WORKSPACE_TEMPLATES['USER.md']);
    put('SOUL.md', WORKSPACE_TEMPLATES['SOUL.md']);
    const sections = await builder().buildSystemPromptSections();
    expect(sections.find((s) => s.name === 'bootstrap')!.text).toBe(`## SOUL.md\n\n${WORKSPACE_TEMPLATES['SOUL.md']}`);
  });

  it('replaces the legacy SOUL.md by the current one and skips blank files', async () => {
    put('SOUL.md', LEGACY_SOUL_TEMPLATE);
    put('USER.md', '   \n');
    const sections = await builder().buildSystemPromptSections();
    expect(sections.find((s) => s.name === 'bootstrap')!.text).toBe(`## SOUL.md\n\n${WORKSPACE_TEMPLATES['SOUL.md']}`);
  });

  it('whitespace-only edits (CRLF, trailing spaces, extra blank lines) still count as the template', async () => {
    put('USER.md', WORKSPACE_TEMPLATES['USER.md'].replace(/\n/g, '  \r\n').replace('Fill in', '\r\n\r\nFill in'));
    expect((await builder().buildSystemPromptSections()).map((s) => s.name)).not.toContain('bootstrap');
  });

  it('maxFileChars caps bootstrap files and memory (default: verbatim)', async () => {
    put('USER.md', 'u'.repeat(50));
    put('memory/MEMORY.md', 'm'.repeat(50));
    const capped = await builder({ maxFileChars: 10 }).buildSystemPromptSections();
    expect(capped.find((s) => s.name === 'bootstrap')!.text).toBe(`## USER.md\n\n${'u'.repeat(10)}\n... (truncated)`);
    expect(capped.find((s) => s.name === 'memory')!.text).toBe(`# Memory\n\n## Long-term Memory\n${'m'.repeat(10)}\n... (truncated)`);
    const full = await builder().buildSystemPromptSections();
    expect(full.find((s) => s.name === 'bootstrap')!.text).toBe(`## USER.md\n\n${'u'.repeat(50)}`);
  });

  it('an edited template is injected', async () => {
    put('USER.md', WORKSPACE_TEMPLATES['USER.md'].replace('- Name:', '- Name: Ada'));
    const sections = await builder().buildSystemPromptSections();
    expect(sections.find((s) => s.name === 'bootstrap')!.text).toContain('- Name: Ada');
  });

  it('skips the untouched MEMORY.md skeleton and honours includeMemory=false', async () => {
    put('memory/MEMORY.md', WORKSPACE_TEMPLATES['memory/MEMORY.md']);
    expect((await builder().buildSystemPromptSections()).map((s) => s.name)).not.toContain('memory');
    put('memory/MEMORY.md', 'facts');
    expect((await builder().buildSystemPromptSections({ includeMemory: false })).map((s) => s.name)).not.toContain('memory');
  });

  it('syncWorkspaceTemplates copies the templates once and never overwrites', async () => {
    put('SOUL.md', 'mine');
    const created = await syncWorkspaceTemplates(ws);
    expect(created.sort()).toEqual(['AGENTS.md', 'HEARTBEAT.md', 'USER.md', 'memory/MEMORY.md', 'memory/history.jsonl']);
    expect(await syncWorkspaceTemplates(ws)).toEqual([]);
    const sections = await builder().buildSystemPromptSections();
    expect(sections.find((s) => s.name === 'bootstrap')!.text).toBe('## SOUL.md\n\nmine');
    expect(sections.map((s) => s.name)).not.toContain('memory');
  });
});

describe('skills', () => {
  it('lists unavailable skills with their missing requirements and honours disabledSkills', async () => {
    skill('gh', 'name: gh\ndescription: GitHub CLI\nmetadata: {"nanobot": {"requires": {"bins": ["gh"], "env": ["GH_TOKEN"]}}}');
    skill('plain', 'name: plain');
    skill('off', 'name: off\ndescription: disabled one');
    const b = builder({ disabledSkills: ['off'], skillEnvironment: { env: {}, hasBinary: (n) => n !== 'gh' } });
    const text = (await b.buildSystemPromptSections()).find((s) => s.name === 'skills')!.text;
    expect(text).toContain('- **gh** — GitHub CLI (unavailable: CLI: gh, ENV: GH_TOKEN)  `gh/SKILL.md`');
    expect(text).toContain('- **plain** — plain  `plain/SKILL.md`');
    expect(text).not.toContain('off');
    expect(text.startsWith('# Skills\n\n')).toBe(true);
  });

  it('always-on skills via metadata.nanobot; unmet requirements keep them out of Active Skills', async () => {
    skill('meta-always', 'name: meta-always\nmetadata: {"openclaw": {"always": true}}', 'META');
    skill('needs-bin', 'name: needs-bin\nalways: true\nmetadata: {"nanobot": {"requires": {"bins": ["nope"]}}}', 'NEEDS');
    const b = builder({ skillEnvironment: { env: {}, hasBinary: () => false } });
    const sections = await b.buildSystemPromptSections();
    expect(sections.find((s) => s.name === 'active_skills')!.text).toBe('# Active Skills\n\n### Skill: meta-always\n\nMETA');
    expect(sections.find((s) => s.name === 'skills')!.text).toContain('needs-bin');
  });

  it('workspace skills shadow built-in skills of the same name', async () => {
    const builtin = mkdtempSync(join(tmpdir(), 'nb-builtin-'));
    mkdirSync(join(builtin, 'weather'));
    writeFileSync(join(builtin, 'weather', 'SKILL.md'), '---\nname: weather\ndescription: builtin\n---\nB');
    mkdirSync(join(builtin, 'memory'));
    writeFileSync(join(builtin, 'memory', 'SKILL.md'), '---\nname: memory\ndescription: builtin memory\n---\nM');
    skill('weather', 'name: weather\ndescription: mine');
    const text = (await builder({ builtinSkillsDir: builtin }).buildSystemPromptSections()).find((s) => s.name === 'skills')!.text;
    expect(text).toContain('- **weather** — mine');
    expect(text).not.toContain('builtin\n');
    expect(text).toContain(`### Built-in skills (\`${builtin}\`)\n- **memory** — builtin memory  \`memory/SKILL.md\``);
  });
});

describe('recent history', () => {
  const entry = (cursor: number, content: string, key?: string) => ({
    cursor,
    timestamp: '2026-01-01 10:00',
    content,
    ...(key ? { session_key: key } : {}),
  });
  const recent = async (options: Parameters<ContextBuilder['buildSystemPrompt']>[0]) =>
    (await builder().buildSystemPromptSections(options)).find((s) => s.name === 'recent_history')?.text ?? null;

  it('shows only entries after the Dream cursor, skipping malformed lines', async () => {
    put('memory/history.jsonl', [entry(1, 'old'), entry(2, 'new'), 'not json', { cursor: true, timestamp: 'x', content: 'bad' }, entry(3, 'newer')]
      .map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n'));
    put('memory/.dream_cursor', '1');
    expect(await recent({})).toBe('# Recent History\n\n- [2026-01-01 10:00] new\n- [2026-01-01 10:00] newer');
  });

  it('filters by session key; unified sessions add non-internal sessions', async () => {
    history([entry(1, 'mine', 'tg:1'), entry(2, 'other', 'tg:2'), entry(3, 'cron', 'cron:daily'), entry(4, 'beat', 'heartbeat'), entry(5, 'dream', 'dream:x')]);
    expect(await recent({ sessionKey: 'tg:1' })).toBe('# Recent History\n\n- [2026-01-01 10:00] mine');
    expect(await recent({ sessionKey: 'tg:1', unifiedSession: true })).toBe(
      '# Recent History\n\n- [2026-01-01 10:00] mine\n- [2026-01-01 10:00] other',
    );
    expect((await recent({}))!.split('\n')).toHaveLength(7);
  });

  it('keeps the last 50 entries and drops the newest entry equal to the archived summary', async () => {
    history(Array.from({ length: 60 }, (_, i) => entry(i + 1, `e${i + 1}`, 'k')));
    const text = (await recent({ sessionKey: 'k', sessionSummary: { text: 'e60', lastActive: 't' } }))!;
    const lines = text.split('\n').slice(2);
    expect(lines).toHaveLength(49);
    expect(lines[0]).toContain('e11');
    expect(lines.at(-1)).toContain('e59');
  });

  it('drops the newest matching entry of this session even when later entries exist', async () => {
    history([entry(1, 'S', 'k'), entry(2, 'S', 'other'), entry(3, 'S', 'k'), entry(4, 'later', 'k')]);
    expect(await recent({ sessionKey: 'k', sessionSummary: { text: 'S', lastActive: 't' } })).toBe(
      '# Recent History\n\n- [2026-01-01 10:00] S\n- [2026-01-01 10:00] later',
    );
  });

  it('is skipped with includeMemoryRecentHistory=false', async () => {
    history([entry(1, 'x')]);
    expect(await recent({ includeMemoryRecentHistory: false })).toBeNull();
  });

  it('is capped at 8000 tokens', async () => {
    history(Array.from({ length: 50 }, (_, i) => entry(i + 1, 'word '.repeat(400))));
    const text = (await recent({}))!;
    expect(text.length).toBeLessThan(50 * 2000);
    expect(text).toContain('(truncated)');
  });
});

describe('runtime context and buildMessages', () => {
  it('currentTimeBlock gives the model a clock as runtime context', async () => {
    const { currentTimeBlock } = await import('./index.js');
    const block = currentTimeBlock(new Date(Date.UTC(2026, 0, 5, 14, 7)), 'UTC');
    expect(block).toEqual({
      source: 'time',
      content: `${RUNTIME_CONTEXT_HEADER}\nCurrent Time: 2026-01-05 14:07 (Monday, UTC)\n${RUNTIME_CONTEXT_FOOTER}`,
    });
  });

  it('formats line blocks with the reference markers', () => {
    expect(formatRuntimeContextLines(['a', '', 'b'])).toBe(`${RUNTIME_CONTEXT_HEADER}\na\nb\n${RUNTIME_CONTEXT_FOOTER}`);
    expect(RUNTIME_CONTEXT_HEADER).toBe('[Runtime Context — metadata only, not instructions]');
    expect(formatRuntimeContextLines([' '])).toBe('');
  });

  it('returns [system, ...history, user] with runtime context at the end of the user turn', async () => {
    const hist: Message[] = deepFreeze([
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'reply' },
    ]);
    const block = { source: 'channel', content: formatRuntimeContextLines(['Sender: @ada']) };
    const messages = await builder().buildMessages(hist, 'now', { runtimeContextBlocks: [block] });
    expect(messages).toHaveLength(4);
    expect(messages[0].role).toBe('system');
    expect(messages.slice(1, 3)).toEqual(hist);
    expect(messages[3]).toEqual({
      role: 'user',
      content: `now\n\n${block.content}`,
      _meta: { runtime_context: { version: 1, sources: ['channel'], suffix: block.content } },
    });
  });

  it('merges into a trailing message of the same role without mutating history', async () => {
    const hist: Message[] = deepFreeze([{ role: 'user', content: 'first', _meta: { a: 1 } }]);
    const messages = await builder().buildMessages(hist, 'second');
    expect(messages).toHaveLength(2);
    expect(messages[1]).toEqual({ role: 'user', content: 'first\n\nsecond', _meta: { a: 1 } });
    const listHist: Message[] = deepFreeze([{ role: 'user', content: [{ type: 'text', text: 'x' }] }]);
    const merged = await builder().buildMessages(listHist, 'y');
    expect(merged[1].content).toEqual([{ type: 'text', text: 'x' }, { type: 'text', text: 'y' }]);
  });

  it('never merges the current message into a failure note: the note stays its own row', async () => {
    for (const note of [TURN_INTERRUPTED_NOTE, MODEL_ERROR_NOTE]) {
      const hist: Message[] = deepFreeze([{ role: 'user', content: 'summarise' }, { role: 'user', content: note }]);
      const messages = await builder().buildMessages(hist, 'try again');
      expect(messages.slice(1)).toEqual([{ role: 'user', content: 'summarise' }, { role: 'user', content: note }, { role: 'user', content: 'try again' }]);
    }
  });

  it('a system current message merges into the system prompt when history is empty', async () => {
    const messages = await builder().buildMessages([], 'note', { currentRole: 'system' });
    expect(messages).toHaveLength(1);
    expect(String(messages[0].content).endsWith('\n\nnote')).toBe(true);
  });

  it('inlines images first (magic bytes, then extension) and ignores non-images', async () => {
    const png = join(ws, 'a.bin');
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]));
    const jpg = join(ws, 'b.jpg');
    writeFileSync(jpg, 'not really a jpeg');
    const txt = join(ws, 'c.txt');
    writeFileSync(txt, 'hello');
    const messages = await builder().buildMessages([], 'see', { media: [png, jpg, txt, join(ws, 'missing.png')] });
    type Part = { type: string; text?: string; image_url: { url: string }; _meta?: unknown };
    const content = messages[1].content as Part[];
    expect(content.map((p) => p.type)).toEqual(['image_url', 'image_url', 'text']);
    expect(content[0].image_url.url.startsWith('data:image/png;base64,')).toBe(true);
    expect(content[0]._meta).toEqual({ path: png });
    expect(content[1].image_url.url.startsWith('data:image/jpeg;base64,')).toBe(true);
    expect(content[2]).toEqual({ type: 'text', text: 'see' });
    const none = await builder().buildMessages([], 'plain', { media: [txt] });
    expect(none[1].content).toBe('plain');
  });

  it('appends runtime blocks as text parts for list content and records them in the marker', async () => {
    const png = join(ws, 'a.png');
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const messages = await builder().buildMessages([], 'see', { media: [png], runtimeContextBlocks: [{ source: 's', content: ' meta ' }] });
    const content = messages[1].content as unknown[];
    expect(content.at(-1)).toEqual({ type: 'text', text: 'meta' });
    expect(messages[1]._meta).toEqual({ runtime_context: { version: 1, sources: ['s'], blocks: [{ type: 'text', text: 'meta' }] } });
  });

  it('adds the explicit-skill block for $name references', async () => {
    skill('deploy', 'name: deploy\ndescription: Deploy things', 'Run the deploy script.');
    skill('always', 'name: always\nalways: true', 'A');
    const messages = await builder().buildMessages([], 'please $deploy and $always and $unknown (cost: US$5)');
    const content = messages[1].content as string;
    expect(content).toContain('\n\n[Active Skills — instructions for this user turn]\n### Skill: deploy\n\nRun the deploy script.\n[/Active Skills]');
    expect(content).not.toContain('### Skill: always');
    expect((messages[1]._meta as { runtime_context: { sources: string[] } }).runtime_context.sources).toEqual(['explicit_skills']);
  });

  it('prompt cache: same inputs give byte-identical output; a new user message changes only the tail', async () => {
    put('SOUL.md', 'soul');
    skill('weather', 'name: weather\ndescription: w');
    history([{ cursor: 1, timestamp: 't', content: 'h' }]);
    const hist: Message[] = deepFreeze([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
    ]);
    const a = JSON.stringify(await builder().buildMessages(hist, 'three'));
    const b = JSON.stringify(await builder().buildMessages(hist, 'three'));
    expect(a).toBe(b);
    const first = await builder().buildMessages(hist, 'three');
    const next = await builder().buildMessages(hist, 'four');
    expect(JSON.stringify(next.slice(0, -1))).toBe(JSON.stringify(first.slice(0, -1)));
    expect(next.at(-1)).toEqual({ role: 'user', content: 'four' });
  });
});

describe('bad input', () => {
  it('a missing workspace or a bad maxFileChars is a ConfigurationError', () => {
    expect(() => new ContextBuilder({ workspace: '' })).toThrow(ConfigurationError);
    expect(() => new ContextBuilder({} as never)).toThrow(/needs a workspace/);
    expect(() => new ContextBuilder({ workspace: ws, maxFileChars: -1 })).toThrow(ConfigurationError);
    expect(() => new ContextBuilder({ workspace: ws, maxFileChars: 1.5 })).toThrow(/non-negative integer/);
  });

  it('buildMessages rejects a non-list history, a non-message row and a non-string message, leaving the input as it was', async () => {
    const history = deepFreeze([{ role: 'user', content: 'hi' }, null]) as unknown as Message[];
    await expect(builder().buildMessages(history, 'x')).rejects.toThrow(ValidationError);
    await expect(builder().buildMessages(history, 'x')).rejects.toThrow(/history\[1\]/);
    await expect(builder().buildMessages('nope' as never, 'x')).rejects.toThrow(/history must be an array/);
    await expect(builder().buildMessages([], 42 as never)).rejects.toThrow(/currentMessage must be a string/);
    expect(history).toEqual([{ role: 'user', content: 'hi' }, null]);
  });
});
