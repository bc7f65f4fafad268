import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCommandPolicy, extractCommandPaths, splitTopLevel, type CommandPolicy } from './exec-guard.js';

const policy: CommandPolicy = { restrictToWorkspace: true, workspace: '/ws', cwd: '/ws', extraDirs: ['/media'] };
const verdict = (command: string, p: Partial<CommandPolicy> = {}) => checkCommandPolicy(command, { ...policy, ...p });

describe('checkCommandPolicy (reference test 88 and the deny list)', () => {
  it.each([
    'cat /dev/null', 'head -c 4 /dev/urandom', 'ls ~+/src', 'cat /media/pic.png', 'echo hi > /ws/out.txt', 'curl https://example.com/a/b',
    'ls -la', 'git status 2>&1 | head',
  ])('allows %s', (command) => expect(verdict(command)).toEqual({ ok: true }));

  it.each([
    '~', 'ls ~', 'cat ~/.bashrc', 'ls ~root', 'cd ~-', 'ls ~+1', 'ls ~-1', 'cat "~/x"', 'X=~/x', 'wc < ~/x', 'cat /dev/sda1', 'cat /etc/passwd',
    "cat '/etc/passwd'", 'cmd --out=/tmp/x', 'echo x >/tmp/y',
  ])('blocks %s as path outside working dir', (command) => {
    const v = verdict(command);
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.kind).toBe('outside');
      expect(v.message).toMatch(/^Error: Command blocked by safety guard \(path outside working dir\)/);
      expect(v.message).toContain('hard policy boundary');
    }
  });

  it('blocks traversal', () => {
    expect(verdict('cat ../x')).toMatchObject({ ok: false, kind: 'traversal' });
    expect(verdict('type ..\\x')).toMatchObject({ ok: false, kind: 'traversal' });
  });

  it.each([
    'rm -r x', 'rm -rf /', 'rm -fr x', 'RM -RF x', 'rm -f -r x', 'rm --recursive x', 'del /f x', 'rmdir /s x', 'format c:', 'ls; format x',
    'mkfs.ext4 /dev/sdb', 'diskpart', 'dd if=/dev/zero of=x', 'echo > /dev/sda', 'shutdown -h now', 'reboot', 'poweroff', ':(){ :|:& };:',
    'echo x > memory/history.jsonl', 'echo x >> history.jsonl', 'echo 1 | tee .dream_cursor', 'cp a memory/history.jsonl', 'mv a .dream_cursor',
    'dd of=history.jsonl', 'sed -i s/a/b/ memory/history.jsonl',
  ])('deny list blocks %s', (command) => {
    expect(verdict(command, { restrictToWorkspace: false })).toEqual({ ok: false, kind: 'deny', message: 'Error: Command blocked by deny pattern filter' });
  });

  it('reading nanobot state is not a write', () => {
    expect(verdict('cat memory/history.jsonl', { restrictToWorkspace: false })).toEqual({ ok: true });
    expect(verdict('cp memory/history.jsonl backup.jsonl', { restrictToWorkspace: false })).toEqual({ ok: true });
  });

  it('allow list: every segment must fully match, then the deny list is skipped', () => {
    const allowPatterns = ['git \\w+', 'rm -rf build'];
    expect(verdict('git status && rm -rf build', { allowPatterns, restrictToWorkspace: false })).toEqual({ ok: true });
    expect(verdict('git status; ls', { allowPatterns, restrictToWorkspace: false })).toEqual({
      ok: false,
      kind: 'allowlist',
      message: 'Error: Command blocked by allowlist filter (not in allowlist)',
    });
    expect(verdict('rm -rf /', { allowPatterns, restrictToWorkspace: false })).toMatchObject({ kind: 'deny' });
  });

  it('user deny patterns add to the built-in ones; broken patterns are ignored', () => {
    expect(verdict('npm publish', { denyPatterns: ['\\bnpm\\s+publish\\b', '('], restrictToWorkspace: false })).toMatchObject({ kind: 'deny' });
    expect(verdict('rm -rf x', { denyPatterns: ['('], restrictToWorkspace: false })).toMatchObject({ kind: 'deny' });
  });

  it('property: any absolute path outside the roots is refused wherever it appears', () => {
    const segment = fc.stringMatching(/^[a-z0-9_.]{1,8}$/).filter((s) => s !== '.' && s !== '..');
    const outsidePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`)
      .filter((p) => !['/ws', '/media'].some((r) => p === r || p.startsWith(`${r}/`)) && !p.startsWith('/dev/'));
    const wrap = fc.constantFrom((p: string) => `cat ${p}`, (p: string) => `cat "${p}"`, (p: string) => `x=${p} cmd`, (p: string) => `wc <${p}`, (p: string) => `echo > ${p}`);
    fc.assert(fc.property(outsidePath, wrap, (p, w) => !verdict(w(p)).ok));
  });
});

describe('helpers', () => {
  it('splitTopLevel respects quotes and redirections', () => {
    expect(splitTopLevel('a && b || c; d | e & f\ng')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(splitTopLevel('echo "a;b" && cmd 2>&1')).toEqual(['echo "a;b"', 'cmd 2>&1']);
  });

  it('extractCommandPaths finds absolute and ~ paths but not URLs', () => {
    expect(extractCommandPaths('curl https://h/x -o /tmp/y; cat ~/z "a=/q"')).toEqual(['/tmp/y', '~/z', '/q']);
  });
});
