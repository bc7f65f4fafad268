import { arch, machine, type } from 'node:os';
import { join, resolve } from 'node:path';
import type { Message, MessageContent } from '@nanobot/schema';
import { ConfigurationError, ValidationError, isFailureNote, truncateText, truncateTextToTokens } from '@nanobot/schema';
import { nodeWorkspaceFs, type WorkspaceFs } from './workspace-fs.js';
import {
  LEGACY_SOUL_TEMPLATE,
  SECTION_SEPARATOR,
  TOOL_CONTRACT,
  WORKSPACE_TEMPLATES,
  renderIdentity,
  renderSkillsSection,
} from './templates.js';
import { buildSkillsSummary, isSkillAvailable, loadSkills, type Skill, type SkillEnvironment, type SkillSource } from './skills.js';
import { parseCursorFile, parseHistoryEntries, type HistoryEntry } from './history-entries.js';
import { appendRuntimeContext, type RuntimeContextBlock } from './runtime-context.js';
import { buildUserContent } from './user-content.js';
import { mergeSameRoleMessage } from './merge-message.js';

/** Recent-history entries kept in the system prompt. */
export const RECENT_HISTORY_MAX_ENTRIES = 50;
/** Token cap of the Recent History section. */
export const RECENT_HISTORY_MAX_TOKENS = 8000;
const EXPLICIT_SKILL_REF = /(?<![\w$])\$([A-Za-z0-9_-]+)/g;

/** The archived summary of earlier, consolidated turns. */
export interface ArchivedSummary {
  text: string;
  /** When the session was last active (shown to the model). */
  lastActive: string;
}

/** Options of {@link ContextBuilder}. */
export interface ContextBuilderOptions {
  /** The agent workspace (profile, memory, skills). */
  workspace: string;
  /** File access; defaults to the local disk. */
  fs?: WorkspaceFs;
  /** The runtime line; defaults to `<OS> <machine>, Node <version>`. */
  runtime?: string;
  /** Platform policy; defaults from `process.platform`. */
  platform?: 'windows' | 'posix';
  /** Directory of bundled skills, listed as "Built-in skills". */
  builtinSkillsDir?: string | null;
  /** Skill names left out of the prompt. */
  disabledSkills?: readonly string[];
  /** Environment and PATH checks for skill requirements. */
  skillEnvironment?: SkillEnvironment;
  /**
   * Cap (code points) for each bootstrap file and MEMORY.md in the prompt; longer files are cut
   * with the reference's truncation marker. Default: no cap (the reference inserts them verbatim).
   */
  maxFileChars?: number | null;
}

/** Per-build options of {@link ContextBuilder.buildSystemPrompt}. */
export interface SystemPromptOptions {
  channel?: string | null;
  sessionSummary?: ArchivedSummary | null;
  /** Effective project directory of this turn (defaults to the agent workspace). */
  workspace?: string | null;
  includeMemory?: boolean;
  includeMemoryRecentHistory?: boolean;
  sessionKey?: string | null;
  unifiedSession?: boolean;
}

/** Per-build options of {@link ContextBuilder.buildMessages}. */
export interface BuildMessagesOptions extends SystemPromptOptions {
  /** Image paths of the current message (inlined as base64 blocks before the text). */
  media?: readonly string[] | null;
  currentRole?: 'user' | 'system' | 'assistant';
  /** Turn-specific metadata appended to the current user message. */
  runtimeContextBlocks?: readonly RuntimeContextBlock[];
}

/** One named section of the system prompt (for inspectors). */
export interface PromptSection {
  name: 'identity' | 'bootstrap' | 'tool_contract' | 'memory' | 'active_skills' | 'skills' | 'recent_history' | 'archived_summary';
  text: string;
}

function defaultRuntime(): string {
  const os = type();
  const name = os === 'Darwin' ? 'macOS' : os === 'Windows_NT' ? 'Windows' : os;
  // os.machine() exists from Node 18.9; arch() is the fallback spelling (x64 rather than x86_64).
  const cpu = typeof machine === 'function' ? machine() : arch();
  return `${name} ${cpu}, Node ${process.version}`;
}

const INTERNAL_SESSION = (key: string): boolean => key === 'heartbeat' || key.startsWith('cron:') || key.startsWith('dream:');

/**
 * Builds what the model is told: the system prompt (identity, bootstrap files, tool contract,
 * memory, skills, recent history, archived summary — in the reference's order, separated by
 * `---` rules) and the message list `[system, ...history, current]`. Everything is read from the
 * workspace on each build and the output depends only on the inputs, so two builds with the
 * same inputs are byte-identical (prompt-cache friendly); turn-specific runtime context goes at
 * the end of the user message, never into the system prompt.
 */
export class ContextBuilder {
  readonly workspace: string;
  private readonly fs: WorkspaceFs;
  private readonly runtime: string;
  private readonly platform: 'windows' | 'posix';
  private readonly builtinSkillsDir: string | null;
  private readonly disabledSkills: readonly string[];
  private readonly skillEnvironment: SkillEnvironment;
  private readonly maxFileChars: number | null;

  /** Throws a `ConfigurationError` for a missing workspace or a negative/non-integer `maxFileChars`. */
  constructor(options: ContextBuilderOptions) {
    if (typeof options?.workspace !== 'string' || options.workspace.trim() === '') {
      throw new ConfigurationError('ContextBuilder needs a workspace directory (a non-empty string)');
    }
    const cap = options.maxFileChars;
    if (cap !== undefined && cap !== null && !(Number.isInteger(cap) && cap >= 0)) {
      throw new ConfigurationError(`ContextBuilder maxFileChars must be a non-negative integer or null, got ${String(cap)}`);
    }
    this.workspace = resolve(options.workspace);
    this.fs = options.fs ?? nodeWorkspaceFs;
    this.runtime = options.runtime ?? defaultRuntime();
    this.platform = options.platform ?? (process.platform === 'win32' ? 'windows' : 'posix');
    this.builtinSkillsDir = options.builtinSkillsDir ?? null;
    this.disabledSkills = options.disabledSkills ?? [];
    this.skillEnvironment = options.skillEnvironment ?? {};
    this.maxFileChars = options.maxFileChars ?? null;
  }

  private capped(text: string): string {
    return this.maxFileChars !== null && this.maxFileChars > 0 ? truncateText(text, this.maxFileChars) : text;
  }

  /** The skills visible from a project directory, in group order (workspace, plugins, built-in). */
  async listSkills(): Promise<Skill[]> {
    const sources: SkillSource[] = [
      { label: 'Workspace skills', root: join(this.workspace, 'skills') },
      { label: 'Agent Plugin skills', root: join(this.workspace, 'plugins') },
    ];
    if (this.builtinSkillsDir) sources.push({ label: 'Built-in skills', root: resolve(this.builtinSkillsDir) });
    return loadSkills(this.fs, sources, { ...this.skillEnvironment, disabled: this.disabledSkills });
  }

  /** The system prompt's sections in order (only those that have content). */
  async buildSystemPromptSections(options: SystemPromptOptions = {}): Promise<PromptSection[]> {
    const { includeMemory = true, includeMemoryRecentHistory = true } = options;
    const root = options.workspace ? resolve(options.workspace) : this.workspace;
    const sections: PromptSection[] = [];
    sections.push({
      name: 'identity',
      text: renderIdentity({
        runtime: this.runtime,
        workspacePath: root,
        agentWorkspacePath: this.workspace,
        platform: this.platform,
        channel: options.channel ?? '',
      }),
    });
    const bootstrap = await this.bootstrapSection(root);
    if (bootstrap) sections.push({ name: 'bootstrap', text: bootstrap });
    sections.push({ name: 'tool_contract', text: TOOL_CONTRACT });
    if (includeMemory) {
      const memory = await this.fs.readText(join(this.workspace, 'memory', 'MEMORY.md'));
      if (memory !== null && memory.trim() !== '' && !isTemplate(memory, WORKSPACE_TEMPLATES['memory/MEMORY.md'])) {
        sections.push({ name: 'memory', text: `# Memory\n\n## Long-term Memory\n${this.capped(memory)}` });
      }
    }
    const skills = await this.listSkills();
    const always = skills.filter((s) => s.always && isSkillAvailable(s));
    if (always.length > 0) {
      sections.push({
        name: 'active_skills',
        text: '# Active Skills\n\n' + always.map((s) => `### Skill: ${s.name}\n\n${s.body}`).join(SECTION_SEPARATOR),
      });
    }
    const listed = skills.filter((s) => !always.includes(s));
    if (listed.length > 0) {
      const display = (r: string): string => {
        if (root !== this.workspace) return r;
        if (r === join(this.workspace, 'skills')) return 'skills';
        if (r === join(this.workspace, 'plugins')) return 'plugins';
        return r;
      };
      sections.push({ name: 'skills', text: renderSkillsSection(buildSkillsSummary(listed, display)) });
    }
    if (includeMemoryRecentHistory) {
      const recent = await this.recentHistorySection(options);
      if (recent) sections.push({ name: 'recent_history', text: recent });
    }
    if (options.sessionSummary && options.sessionSummary.text) {
      sections.push({
        name: 'archived_summary',
        text: `[Archived Context Summary]\n\nPrevious conversation summary (last active ${options.sessionSummary.lastActive}):\n${options.sessionSummary.text}`,
      });
    }
    return sections;
  }

  /** The full system prompt: the sections joined by `\n\n---\n\n`. */
  async buildSystemPrompt(options: SystemPromptOptions = {}): Promise<string> {
    return (await this.buildSystemPromptSections(options)).map((s) => s.text).join(SECTION_SEPARATOR);
  }

  private async bootstrapSection(root: string): Promise<string | null> {
    const sources: [string, string][] = [
      ['AGENTS.md', root],
      ['SOUL.md', this.workspace],
      ['USER.md', this.workspace],
    ];
    const parts: string[] = [];
    for (const [name, dir] of sources) {
      let content = await this.fs.readText(join(dir, name));
      if (content === null) continue;
      if (name === 'SOUL.md' && isTemplate(content, LEGACY_SOUL_TEMPLATE)) content = WORKSPACE_TEMPLATES['SOUL.md'];
      if (content.trim() === '') continue;
      if (name !== 'SOUL.md' && isTemplate(content, WORKSPACE_TEMPLATES[name])) continue;
      parts.push(`## ${name}\n\n${this.capped(content)}`);
    }
    return parts.length > 0 ? parts.join('\n\n') : null;
  }

  private async recentHistorySection(options: SystemPromptOptions): Promise<string | null> {
    const text = await this.fs.readText(join(this.workspace, 'memory', 'history.jsonl'));
    if (text === null || text.trim() === '') return null;
    const dreamCursor = parseCursorFile(await this.fs.readText(join(this.workspace, 'memory', '.dream_cursor')));
    let entries: HistoryEntry[] = parseHistoryEntries(text).entries.filter((e) => e.cursor > dreamCursor);
    const key = options.sessionKey;
    if (key) {
      entries = options.unifiedSession
        ? entries.filter((e) => e.session_key === key || (e.session_key !== undefined && !INTERNAL_SESSION(e.session_key)))
        : entries.filter((e) => e.session_key === key);
    }
    entries = entries.slice(-RECENT_HISTORY_MAX_ENTRIES);
    const summary = options.sessionSummary?.text;
    if (summary) {
      // The archived summary is shown in its own section; do not repeat its history entry.
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        if ((!key || entries[i].session_key === key) && entries[i].content === summary) {
          entries = [...entries.slice(0, i), ...entries.slice(i + 1)];
          break;
        }
      }
    }
    if (entries.length === 0) return null;
    const lines = entries.map((e) => `- [${e.timestamp}] ${e.content}`).join('\n');
    return `# Recent History\n\n${truncateTextToTokens(lines, RECENT_HISTORY_MAX_TOKENS)}`;
  }

  /** The explicit-skill block for `$name` references in the user text (always-on and unavailable skills excluded). */
  async explicitSkillsBlock(text: string): Promise<RuntimeContextBlock | null> {
    const names = [...text.matchAll(EXPLICIT_SKILL_REF)].map((m) => m[1]);
    if (names.length === 0) return null;
    const skills = await this.listSkills();
    const picked: Skill[] = [];
    for (const name of names) {
      const skill = skills.find((s) => s.name === name || s.relativePath === `${name}/SKILL.md`);
      if (skill && !skill.always && isSkillAvailable(skill) && !picked.includes(skill)) picked.push(skill);
    }
    if (picked.length === 0) return null;
    const body = picked.map((s) => `### Skill: ${s.name}\n\n${s.body}`).join('\n\n');
    return { source: 'explicit_skills', content: `[Active Skills — instructions for this user turn]\n${body}\n[/Active Skills]` };
  }

  /**
   * The current message: text plus inline images; for user turns the runtime-context blocks
   * (and the explicit-skill block, unless already supplied) are appended at the end and
   * recorded in `_meta.runtime_context`.
   */
  async buildCurrentMessage(
    text: string,
    options: Pick<BuildMessagesOptions, 'media' | 'currentRole' | 'runtimeContextBlocks'> = {},
  ): Promise<Message> {
    const role = options.currentRole ?? 'user';
    let content: MessageContent = await buildUserContent(text, options.media, this.fs);
    const message: Message = { role, content };
    if (role === 'user') {
      const blocks = [...(options.runtimeContextBlocks ?? [])];
      if (!blocks.some((b) => b.source === 'explicit_skills')) {
        const explicit = await this.explicitSkillsBlock(text);
        if (explicit) blocks.push(explicit);
      }
      const [withContext, marker] = appendRuntimeContext(content, blocks);
      content = withContext;
      message.content = content;
      if (marker) message._meta = { runtime_context: marker };
    }
    return message;
  }

  /**
   * `[system, ...history, current]`. When the last message already has the current role, the
   * current message is merged into a copy of it instead (strings joined by a blank line,
   * otherwise block lists concatenated) — except into a failure note (`isFailureNote` from
   * @nanobot/schema: nanobot's own "the turn above was interrupted…" row), which stays its own row
   * so the caller that stores the current message stores only what was said. `history` is not
   * modified. Throws a `ValidationError`
   * when `history` is not a list of message objects or `currentMessage` is not a string.
   */
  async buildMessages(history: readonly Message[], currentMessage: string, options: BuildMessagesOptions = {}): Promise<Message[]> {
    if (!Array.isArray(history)) throw new ValidationError('buildMessages: history must be an array of messages', ['history']);
    const bad = history.findIndex((m) => m === null || typeof m !== 'object' || typeof (m as { role?: unknown }).role !== 'string');
    if (bad >= 0) throw new ValidationError(`buildMessages: history[${bad}] is not a message (an object with a role)`, ['history', bad]);
    if (typeof currentMessage !== 'string') throw new ValidationError('buildMessages: currentMessage must be a string', ['currentMessage']);
    const system: Message = { role: 'system', content: await this.buildSystemPrompt(options) };
    const messages: Message[] = [system, ...history];
    const current = await this.buildCurrentMessage(currentMessage, options);
    const last = messages[messages.length - 1];
    if (last.role === current.role && !isFailureNote(last)) messages[messages.length - 1] = mergeSameRoleMessage(last, current);
    else messages.push(current);
    return messages;
  }
}

function normalizeTemplateText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Whether `content` is still the shipped template, i.e. the user never edited it. Compared after
 * normalising line endings, trailing spaces and runs of blank lines (the reference compares the
 * trimmed text exactly, so an editor that re-saves the file with CRLF made it count as user content).
 */
export function isTemplate(content: string, template: string | undefined): boolean {
  return template !== undefined && normalizeTemplateText(content) === normalizeTemplateText(template);
}
