import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { isInside } from '../workspace/resolve-workspace-path.js';

/**
 * Built-in deny patterns, searched in the lower-cased command (as the reference): recursive or
 * forced `rm`, Windows `del /f|/q` and `rmdir /s`, a standalone `format`, `mkfs`/`diskpart`,
 * `dd if=`, writes to `/dev/sd*`, power commands, the classic fork bomb, and writes to
 * nanobot's own state (`history.jsonl`, `.dream_cursor`).
 */
export const DEFAULT_DENY_PATTERNS: readonly string[] = [
  String.raw`\brm\s+(?:-{1,2}[\w-]+\s+)*-(?:[a-z]*[rf][a-z]*|-recursive|-force)\b`,
  String.raw`\bdel\s+/[fq]\b`,
  String.raw`\brmdir\s+/s\b`,
  String.raw`(?:^|[;&|]\s*)format\b`,
  String.raw`\b(?:mkfs|diskpart)\b`,
  String.raw`\bdd\s+if=`,
  String.raw`>\s*/dev/sd`,
  String.raw`\b(?:shutdown|reboot|poweroff)\b`,
  String.raw`:\(\)\s*\{.*\};\s*:`,
  String.raw`>>?\s*['"]?[^\s;&|]*(?:history\.jsonl|\.dream_cursor)\b`,
  String.raw`\btee\b[^;&|\n]*(?:history\.jsonl|\.dream_cursor)\b`,
  String.raw`\b(?:cp|mv)\b[^;&|\n]*\s['"]?[^\s;&|]*(?:history\.jsonl|\.dream_cursor)['"]?\s*(?:$|[;&|\n])`,
  String.raw`\bdd\b[^;&|\n]*\bof=[^\s;&|]*(?:history\.jsonl|\.dream_cursor)\b`,
  String.raw`\bsed\b[^;&|\n]*\s-i[^;&|\n]*(?:history\.jsonl|\.dream_cursor)\b`,
];

/** Devices a confined command may still use. */
const BENIGN_DEVICES = new Set([
  '/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty',
]);

/** Appended to path refusals so the model stops instead of trying shell tricks. */
export const EXEC_BOUNDARY_NOTE =
  'This is a hard policy boundary: do not retry with other paths, variables, encodings, symlinks or working_dir ' +
  'overrides. If the user needs this resource, ask them to copy it into the workspace.';

/** Inputs of `checkCommandPolicy`. */
export interface CommandPolicy {
  /** Extra deny patterns (regex sources), checked before the built-in ones. */
  readonly denyPatterns?: readonly string[];
  /** When set, a command whose every top-level segment fully matches one skips the deny list; others are refused. */
  readonly allowPatterns?: readonly string[];
  /** Confine paths in the command to `cwd` / `workspace` / `extraDirs`. */
  readonly restrictToWorkspace: boolean;
  readonly workspace: string;
  readonly cwd: string;
  readonly extraDirs?: readonly string[];
}

/** Why a command was refused; `kind` tells the tool which typed error (if any) to raise. */
export type PolicyVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: 'deny' | 'allowlist' | 'traversal' | 'outside'; readonly message: string; readonly path?: string };

/** Splits on top-level `;`, `&&`, `||`, `|`, `&` and newlines (quotes respected, heuristically). */
export function splitTopLevel(command: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      current += c;
      if (c === '\\' && quote === '"' && i + 1 < command.length) current += command[++i];
      else if (c === quote) quote = null;
      continue;
    }
    // `2>&1`, `&>file`, `<&3` are redirections, not separators.
    if (c === '&' && (command[i - 1] === '>' || command[i - 1] === '<' || command[i + 1] === '>')) {
      current += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      current += c;
    } else if (c === ';' || c === '\n' || c === '|' || c === '&') {
      if ((c === '&' || c === '|') && command[i + 1] === c) i++;
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Candidate paths in a command: absolute POSIX paths and `~` forms at the start, after
 * whitespace, quotes, `=` or redirections. URLs (`scheme://…`) are not paths.
 */
export function extractCommandPaths(command: string): string[] {
  const found: string[] = [];
  const re = /(?:^|[\s'"=<>|;&(])((?:\/|~)[^\s'"<>|;&)]*)/g;
  for (let m = re.exec(command); m !== null; m = re.exec(command)) found.push(m[1]);
  return found;
}

function compileAll(patterns: readonly string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const p of patterns) {
    try {
      out.push(new RegExp(p));
    } catch {
      // A broken user pattern must not disable the rest of the guard.
    }
  }
  return out;
}

/**
 * The shell guard's synchronous part, in the reference's order: allow/deny lists, then (when
 * confined) `../` traversal and every absolute or `~` path outside cwd/workspace. The URL check
 * (step 2) needs DNS and lives in the exec tool. A regex heuristic: advisory, not a sandbox.
 * Pure.
 */
export function checkCommandPolicy(command: string, policy: CommandPolicy): PolicyVerdict {
  const lower = command.trim().toLowerCase();
  const allow = compileAll(policy.allowPatterns ?? []);
  const allowed =
    allow.length > 0 &&
    splitTopLevel(lower).every((segment) => allow.some((re) => { const m = re.exec(segment); return m !== null && m[0] === segment; }));
  if (!allowed) {
    const deny = compileAll([...(policy.denyPatterns ?? []), ...DEFAULT_DENY_PATTERNS]);
    if (deny.some((re) => re.test(lower))) return { ok: false, kind: 'deny', message: 'Error: Command blocked by deny pattern filter' };
    if (allow.length > 0) return { ok: false, kind: 'allowlist', message: 'Error: Command blocked by allowlist filter (not in allowlist)' };
  }
  if (!policy.restrictToWorkspace) return { ok: true };
  if (command.includes('../') || command.includes('..\\')) {
    return { ok: false, kind: 'traversal', message: `Error: Command blocked by safety guard (path traversal detected). ${EXEC_BOUNDARY_NOTE}` };
  }
  const roots = [policy.cwd, policy.workspace, ...(policy.extraDirs ?? [])].map((r) => resolve(r));
  const outside = (path: string) => ({
    ok: false as const,
    kind: 'outside' as const,
    message: `Error: Command blocked by safety guard (path outside working dir). ${EXEC_BOUNDARY_NOTE}`,
    path,
  });
  for (const raw of extractCommandPaths(command)) {
    let expanded: string;
    if (raw.startsWith('~')) {
      const m = /^~([^/]*)(\/.*)?$/.exec(raw)!;
      const who = m[1];
      const rest = m[2] ?? '';
      if (who === '+') expanded = resolve(policy.cwd) + rest;
      else if (who === '') expanded = homedir() + rest;
      else return outside(raw); // ~user, ~-, ~N, ~+N, ~-N: never resolvable safely.
    } else expanded = raw;
    if (!isAbsolute(expanded)) continue;
    const normalised = resolve(expanded);
    if (BENIGN_DEVICES.has(normalised)) continue;
    if (!roots.some((r) => isInside(normalised, r))) return outside(raw);
  }
  return { ok: true };
}

/** `http(s)://` URLs in a command, for the SSRF check. */
export function extractCommandUrls(command: string): string[] {
  return command.match(/https?:\/\/[^\s'"<>|;&)`]+/gi) ?? [];
}
