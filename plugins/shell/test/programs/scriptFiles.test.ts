import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { fakeContext, formatAll } from '../helpers.js';

// Program files that sed -f, awk -f and jq -f read are analysed from their real contents.
const dir = mkdtempSync(join(tmpdir(), 'tg-progcode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ctx = fakeContext({}, dir);
const run = (cmd: string) => formatAll(extractAccesses(cmd, ctx, {}, dir).accesses);

describe('script files are read for what they do', () => {
  it('sed -f: a w command inside the file is a write', () => {
    writeFileSync(join(dir, 'evil.sed'), 's/a/b/\n1r /etc/shadow\nw /etc/x\n');
    writeFileSync(join(dir, 'in.txt'), 'a\n');
    expect(run('sed -f evil.sed in.txt')).toEqual(
      [`read ${dir}/evil.sed`, `read ${dir}/in.txt`, 'read /etc/shadow', 'write /etc/x'].sort(),
    );
  });
  it('sed -f: a plain script file stays certain (benign twin)', () => {
    writeFileSync(join(dir, 'ok.sed'), 's/a/b/g\n/^#/d\n');
    expect(run('sed -f ok.sed in.txt')).toEqual([`read ${dir}/in.txt`, `read ${dir}/ok.sed`]);
  });
  it('awk -f: system() and print > inside the file', () => {
    writeFileSync(join(dir, 'evil.awk'), 'BEGIN { system("cat /etc/shadow") }\n{ print > "/etc/x" }\n');
    expect(run('awk -f evil.awk in.txt')).toEqual(
      [`read ${dir}/evil.awk`, `read ${dir}/in.txt`, 'read /etc/shadow', 'write /etc/x'].sort(),
    );
  });
  it('awk -f: a plain program file stays certain (benign twin)', () => {
    writeFileSync(join(dir, 'sum.awk'), '{ s += $1 } END { print s }\n');
    expect(run('awk -f sum.awk in.txt')).toEqual([`read ${dir}/in.txt`, `read ${dir}/sum.awk`]);
  });
  it('jq -f: an import in the filter file is uncertain, a plain filter is not', () => {
    writeFileSync(join(dir, 'imp.jq'), 'import "m" as m; .\n');
    writeFileSync(join(dir, 'ok.jq'), '.name\n');
    expect(run('jq -f imp.jq in.txt')).toContain('read ?');
    expect(run('jq -f ok.jq in.txt')).toEqual([`read ${dir}/in.txt`, `read ${dir}/ok.jq`]);
  });
  it('sed -i on a symlink reads the target and replaces the link (GNU sed without --follow-symlinks)', () => {
    writeFileSync(join(dir, 'target.txt'), 'a\n');
    symlinkSync(join(dir, 'target.txt'), join(dir, 'lnk'));
    const r = extractAccesses('sed -i s/a/b/ lnk', ctx, {}, dir).accesses;
    expect(formatAll(r)).toEqual([`read ${dir}/lnk`, `write ${dir}/lnk (link)`]);
    expect(r.find((a) => a.op === 'read')?.realPath).toBe(join(dir, 'target.txt'));
    const f = extractAccesses('sed -i --follow-symlinks s/a/b/ lnk', ctx, {}, dir).accesses;
    expect(f.map((a) => [a.op, a.realPath, a.onLink ?? false])).toEqual([
      ['write', join(dir, 'target.txt'), false],
    ]);
  });
  it('a script file the same line writes first is not trusted', () => {
    expect(run("echo 'w /etc/x' > s.sed && sed -f s.sed in.txt")).toContain('write ?');
  });
});

// Bypass closed: `bash FILE` only read the file, so a script in the workspace ran anything unjudged.
describe('shell script files run by bash/sh are analysed as shell (attacks and twins)', () => {
  const attacks: [string, string, string][] = [
    ['bash evil1.sh', 'cat /etc/shadow\n', 'read /etc/shadow'],
    ['sh evil2.sh', 'cp ~/.ssh/id_rsa /tmp/k\n', 'read /home/agent/.ssh/id_rsa'],
    ['bash -e evil3.sh', 'echo x > /etc/cron.d/x\n', 'write /etc/cron.d/x'],
    ['bash evil4.sh /etc/shadow', 'cat "$1"\n', 'read /etc/shadow'],
    ['bash -- evil5.sh', 'cd /etc && cat passwd\n', 'read /etc/passwd'],
    ['dash evil6.sh', 'f() { cat /etc/shadow; }\nf\n', 'read /etc/shadow'],
    ['bash evil7.sh', 'if true; then\n  rm -rf ~/.ssh\nfi\n', 'write* /home/agent/.ssh (link)'],
    ['sh evil8.sh', 'HOME=/etc\ncat ~/passwd\n', 'read /etc/passwd'],
    ['bash evil9.sh', 'bash -c "cat /etc/shadow"\n', 'read /etc/shadow'],
    ['bash evil10.sh', 'for f in /etc/shadow; do cat "$f"; done\n', 'read /etc/shadow'],
  ];
  it.each(attacks)('%s reports what the script does', (cmd, script, access) => {
    writeFileSync(join(dir, cmd.split(' ').find((w) => w.endsWith('.sh'))!), script);
    expect(run(cmd)).toContain(access);
  });
  it('a plain build script stays certain (benign twin)', () => {
    writeFileSync(join(dir, 'build.sh'), 'set -e\nmkdir -p out\ncp in.txt out/\necho done\n');
    writeFileSync(join(dir, 'in.txt'), 'a\n');
    const r = extractAccesses('bash build.sh', ctx, {}, dir);
    expect(r.uncertain).toBe(false);
    expect(formatAll(r.accesses)).toContain(`read ${dir}/in.txt`);
  });
  it('a missing script, one the line writes first, or a zsh script is uncertain', () => {
    expect(run('bash nowhere.sh')).toContain('write ?');
    expect(run("echo 'cat /etc/shadow' > w.sh; bash w.sh")).toContain('write ?');
    writeFileSync(join(dir, 'z.sh'), 'echo hi\n');
    expect(run('zsh z.sh')).toContain('write ?');
  });
});

// Bypass closed: the shell lists a glob's directory itself (`echo ~/.ssh/*` prints the names in it).
describe("the shell's own glob listing is judged", () => {
  it('echo DIR/* lists DIR; a deeper glob lists the filtered subtree', () => {
    expect(run('echo /etc/ssh/*')).toContain('list /etc/ssh');
    expect(run('printf "%s\\n" ~/.ssh/*')).toContain('list /home/agent/.ssh');
    expect(run('echo /e*/p*')).toContain('list* /');
  });
  it('a quoted pattern is no glob (benign twin)', () => {
    expect(run("echo '/etc/ssh/*'")).toEqual([]);
  });
});
