import { delimiter, join } from 'node:path';
import { accessSync, constants } from 'node:fs';
import type { WorkspaceFs } from './workspace-fs.js';

/** A skill found on disk (`<root>/<dir>/SKILL.md`). */
export interface Skill {
  name: string;
  description: string;
  /** Group label: `Workspace skills`, `Agent Plugin skills` or `Built-in skills`. */
  group: string;
  /** Directory the group is listed under. */
  root: string;
  /** Path of SKILL.md relative to `root`. */
  relativePath: string;
  /** Absolute path of SKILL.md. */
  path: string;
  always: boolean;
  /** The file body without its front matter, trimmed. */
  body: string;
  /** Missing requirements (`CLI: x`, `ENV: Y`); empty when available. */
  missing: { bins: string[]; env: string[] };
  frontMatter: Record<string, unknown>;
}

/** Where skills are looked for and how requirements are checked. */
export interface SkillSource {
  label: string;
  root: string;
}

/** Requirement checks, injectable for tests. */
export interface SkillEnvironment {
  env?: Readonly<Record<string, string | undefined>>;
  /** Whether a command is on PATH (synchronous; must not throw). */
  hasBinary?: (name: string) => boolean;
}

function unquote(value: string): unknown {
  const v = value.trim();
  if (v === '') return '';
  if ((v.startsWith('"') && v.endsWith('"')) || v.startsWith('{') || v.startsWith('[')) {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replace(/''/g, "'");
  if (v === 'true') return true;
  if (v === 'false') return false;
  return v;
}

/**
 * Splits a SKILL.md into front matter and body. Front matter is the block between a leading
 * `---` line and the next `---` line, read as `key: value` lines (values may be quoted strings,
 * booleans, or inline JSON objects/lists as nanobot's `metadata` is). Nested YAML blocks are not read.
 */
export function parseFrontMatter(text: string): { frontMatter: Record<string, unknown>; body: string } {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const match = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(normalized);
  if (!match) return { frontMatter: {}, body: normalized.trim() };
  const frontMatter: Record<string, unknown> = {};
  for (const line of match[1].split('\n')) {
    const m = /^([A-Za-z0-9_-]+):(.*)$/.exec(line);
    if (m) frontMatter[m[1]] = unquote(m[2]);
  }
  return { frontMatter, body: normalized.slice(match[0].length).trim() };
}

function nanobotMeta(frontMatter: Record<string, unknown>): Record<string, unknown> {
  const meta = frontMatter.metadata;
  if (typeof meta !== 'object' || meta === null) return {};
  const m = meta as Record<string, unknown>;
  const inner = m.nanobot ?? m.openclaw;
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {};
}

const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** Default PATH lookup for required binaries. */
export function hasBinaryOnPath(name: string, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      try {
        accessSync(join(dir, name + ext), constants.X_OK);
        return true;
      } catch {
        // keep looking
      }
    }
  }
  return false;
}

/**
 * Lists the skills of each source in order; a name found in an earlier source shadows later
 * ones, and `disabled` names are left out. Within a source skills are sorted by directory name
 * so the prompt is stable.
 */
export async function loadSkills(
  fs: WorkspaceFs,
  sources: readonly SkillSource[],
  options: SkillEnvironment & { disabled?: readonly string[] } = {},
): Promise<Skill[]> {
  const env = options.env ?? process.env;
  const hasBinary = options.hasBinary ?? ((name: string) => hasBinaryOnPath(name, env));
  const disabled = new Set(options.disabled ?? []);
  const seen = new Set<string>();
  const skills: Skill[] = [];
  for (const source of sources) {
    const entries = ((await fs.listDir(source.root)) ?? []).slice().sort();
    for (const dir of entries) {
      if (dir.startsWith('.')) continue;
      const path = join(source.root, dir, 'SKILL.md');
      const text = await fs.readText(path);
      if (text === null) continue;
      const { frontMatter, body } = parseFrontMatter(text);
      const name = typeof frontMatter.name === 'string' && frontMatter.name.trim() ? frontMatter.name.trim() : dir;
      if (seen.has(name) || disabled.has(name)) continue;
      seen.add(name);
      const meta = nanobotMeta(frontMatter);
      const requires = (typeof meta.requires === 'object' && meta.requires !== null ? meta.requires : {}) as Record<string, unknown>;
      skills.push({
        name,
        description: typeof frontMatter.description === 'string' ? frontMatter.description.trim() : '',
        group: source.label,
        root: source.root,
        relativePath: `${dir}/SKILL.md`,
        path,
        always: frontMatter.always === true || meta.always === true,
        body,
        missing: {
          bins: stringList(requires.bins).filter((bin) => !hasBinary(bin)),
          env: stringList(requires.env).filter((key) => !env[key]),
        },
        frontMatter,
      });
    }
  }
  return skills;
}

/** Whether every requirement of the skill is met. */
export function isSkillAvailable(skill: Skill): boolean {
  return skill.missing.bins.length === 0 && skill.missing.env.length === 0;
}

function unavailableSuffix(skill: Skill): string {
  if (isSkillAvailable(skill)) return '';
  const parts: string[] = [];
  if (skill.missing.bins.length) parts.push(`CLI: ${skill.missing.bins.join(', ')}`);
  if (skill.missing.env.length) parts.push(`ENV: ${skill.missing.env.join(', ')}`);
  return ` (unavailable: ${parts.join(', ')})`;
}

/**
 * The skills summary: one group per label with a header ``### <label> (`<root>`)`` and one line
 * ``- **<name>** — <description><suffix>  `<relative path>` `` per skill; groups joined by a blank line.
 * `displayRoot` maps a source root to what is shown (relative when project == agent workspace).
 */
export function buildSkillsSummary(skills: readonly Skill[], displayRoot: (root: string) => string = (r) => r): string {
  const groups = new Map<string, Skill[]>();
  for (const skill of skills) {
    const key = `${skill.group}\u0000${skill.root}`;
    groups.set(key, [...(groups.get(key) ?? []), skill]);
  }
  const blocks: string[] = [];
  for (const list of groups.values()) {
    const first = list[0];
    const lines = [`### ${first.group} (\`${displayRoot(first.root)}\`)`];
    for (const skill of list) {
      lines.push(`- **${skill.name}** — ${skill.description || skill.name}${unavailableSuffix(skill)}  \`${skill.relativePath}\``);
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n\n');
}
