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
