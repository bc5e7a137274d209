import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandTable, extractAccesses, parseScript } from '../src/index.js';
import { FIXTURE_ENV, fakeContext, formatAll } from './helpers.js';

const ctx = fakeContext(FIXTURE_ENV);

// A small grammar of shell: words (plain, quoted, expanded, globbed), commands, redirects, lists and the
// compound commands, nested code and constructs bash-parser gets wrong.
const plainWord = fc.constantFrom(
  '/etc/passwd',
  'a.txt',
  './x',
  '../y',
  '~/z',
  '-r',
  '-f',
  '--',
  '-t',
  '/d',
  'x=1',
  '{}',
  ';',
  '+',
);
const fancyWord = fc.constantFrom(
  '"/a b"',
  "'/c d'",
  '/e"t"c',
  '\\/x',
  '$D/f',
  '${D}/g',
  '"$SP"',
  '/{a,b}/c',
  '*.ts',
  '/e*/p',
  "$'\\x2f'",
  '$(pwd)',
  '`id`',
  '$UNSET',
  '${X:-/q}',
  '<(ls /r)',
  '$((1+2))',
  '"${arr[0]}"',
  '~root',
  '$1',
);
const word = fc.oneof(plainWord, fancyWord);
const name = fc.constantFrom(
  'cat',
  'rm',
  'cp',
  'mv',
  'ln -s',
  'echo',
  'tee',
  'grep x',
  'sed -i s/a/b/',
  'sudo rm',
  'xargs rm',
  'frob',
  'cd',
  'bash -c',
  'eval',
  'find',
  'tar cf',
  'tar -xf',
  'X=/etc',
  'env',
  'timeout 1',
  'git',
  'curl -o',
  'dd',
  'source',
  'python3',
  'awk',
  'chmod 600',
  'unzip',
  'rsync',
  'ls',
  'export',
  'read',
  'trap',
  'select',
);
const redirect = fc.constantFrom(
  '',
  ' > /o',
  ' >> o',
  ' < /i',
  ' 2>&1',
  ' 2> /e',
  ' &> /l',
  ' >| p',
  ' <<< w',
  ' <<E\nbody $(cat /h)\nE\n',
  ' >&2',
);
const simple = fc
  .tuple(name, fc.array(word, { maxLength: 4 }), redirect)
  .map(([n, ws, r]) => `${n} ${ws.join(' ')}${r}`);
const sep = fc.constantFrom(' && ', ' || ', '; ', ' | ', ' & ', '\n', ' |& ');
const command: fc.Arbitrary<string> = fc.letrec((tie) => ({
  cmd: fc.oneof(
    { weight: 5, arbitrary: simple },
    { weight: 1, arbitrary: tie('list').map((l) => `( ${l} )`) },
    { weight: 1, arbitrary: tie('list').map((l) => `{ ${l}; }`) },
    { weight: 1, arbitrary: fc.tuple(tie('list'), tie('list')).map(([a, b]) => `if ${a}; then ${b}; fi`) },
    { weight: 1, arbitrary: fc.tuple(word, tie('list')).map(([w, b]) => `for v in ${w}; do ${b}; done`) },
    { weight: 1, arbitrary: tie('list').map((l) => `while true; do ${l}; done`) },
    { weight: 1, arbitrary: tie('list').map((l) => `f() { ${l}; }`) },
    { weight: 1, arbitrary: tie('list').map((l) => `bash -c '${l.replaceAll("'", '')}'`) },
    { weight: 1, arbitrary: tie('list').map((l) => `echo $(${l})`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '((x++))',
        'function g { cat /k; }',
        'a=(1 2)',
        'case $D in x) rm /m;; esac',
      ),
    },
  ),
  list: fc
    .tuple(
      tie('cmd') as fc.Arbitrary<string>,
      fc.array(fc.tuple(sep, tie('cmd') as fc.Arbitrary<string>), { maxLength: 2 }),
    )
    .map(([c, rest]) => c + rest.map(([s, x]) => s + x).join('')),
})).list as fc.Arbitrary<string>;

describe('properties', () => {
  it('never throws on commands built from the grammar', () => {
    fc.assert(
      fc.property(command, (cmd) => {
        const r = extractAccesses(cmd, ctx);
        expect(Array.isArray(r.accesses)).toBe(true);
        expect(r.uncertain).toBe(r.accesses.some((a) => !a.certain));
        for (const a of r.accesses) {
          expect(a.origin.startsWith('shell:')).toBe(true);
          if (!a.certain) expect(a.reason).toBeTruthy();
        }
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on arbitrary text, and unparseable text is uncertain', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(...'ab /$(){}[]\'"`\\;&|<>*?~#=!\n\t-.x0'.split(''), '\0'),
          maxLength: 40,
        }),
        (text) => {
          const r = extractAccesses(text, ctx);
          let parses = true;
          try {
            parseScript(text);
          } catch {
            parses = false;
          }
          // Text that cannot be parsed may touch anything: exactly one uncertain access, never an empty list.
          if (!parses) {
            expect(r.uncertain).toBe(true);
            expect(r.accesses).toHaveLength(1);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  // Constructs whose value cannot be known, put where a path goes: the result is never "certain" and never empty.
  const poison = fc.constantFrom(
    '$(cat list)',
    '`cat list`',
    '$UNSET',
    '${D%/x}',
    '$1',
    '$RANDOM/x',
    '"$(pwd)"/f',
    '${#D}',
    '$((2*3))',
  );
  const pathSlot = fc.constantFrom(
    (p: string) => `cat ${p}`,
    (p: string) => `rm -rf ${p}`,
    (p: string) => `echo x > ${p}`,
    (p: string) => `cp /a ${p}`,
    (p: string) => `cd ${p} && cat x`,
    (p: string) => `eval ${p}`,
    (p: string) => `bash -c ${p}`,
    (p: string) => `sudo tee ${p}`,
    (p: string) => `find ${p} -delete`,
    (p: string) => `${p} /etc/x`,
    (p: string) => `tar -xf a.tar -C ${p}`,
    (p: string) => `for f in ${p}; do rm $f; done`,
  );
  it('a path built from something unknowable yields an uncertain access', () => {
    fc.assert(
      fc.property(fc.array(simple, { maxLength: 2 }), pathSlot, poison, sep, (prefix, slot, p, s) => {
        const cmd = [...prefix, slot(p)].join(s === ' | ' || s === ' |& ' || s === ' & ' ? '; ' : s);
        const r = extractAccesses(cmd, ctx);
        expect(r.uncertain, cmd).toBe(true);
        expect(r.accesses.length).toBeGreaterThan(0);
      }),
      { numRuns: 400 },
    );
  });

  it('commands whose effect is unknowable are uncertain', () => {
    for (const cmd of [
      'xargs rm',
      'source ./x',
      'bash',
      'python3 -c "x"',
      'sh -s',
      'alias x=y\nx',
      'alias $A=y',
      'select a in b; do :; done',
      'patch -p1',
      'perl -e "print `id`"',
    ]) {
      expect(extractAccesses(cmd, ctx).uncertain, cmd).toBe(true);
    }
  });

  it('quoting a plain path does not change what it touches', () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/).filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.boolean(), (parts, abs) => {
        const path = (abs ? '/' : '') + parts.join('/');
        const plain = formatAll(extractAccesses(`rm ${path}`, ctx).accesses);
        expect(formatAll(extractAccesses(`rm "${path}"`, ctx).accesses)).toEqual(plain);
        expect(formatAll(extractAccesses(`rm '${path}'`, ctx).accesses)).toEqual(plain);
        expect(formatAll(extractAccesses(`bash -c 'rm ${path}'`, ctx).accesses)).toEqual(plain);
      }),
      { numRuns: 200 },
    );
  });

  it('every command of the table takes any argv without throwing', () => {
    const names = [...commandTable.keys()];
    const arg = fc.constantFrom(
      '-',
      '--',
      '-t',
      '-C',
      '-o',
      '-f',
      '-e',
      '-c',
      '-i',
      '-r',
      '-R',
      '-L',
      '-P',
      '-x',
      '-d',
      '-u',
      '-s',
      '-n',
      '-a',
      '-I',
      '--target-directory',
      '--output=/o',
      '--file',
      '--in-place=.b',
      '--reference=/r',
      '-rf',
      '-czf',
      'xf',
      'czf',
      '/a',
      'b',
      './c',
      '~/d',
      '$UNSET',
      '$(x)',
      '"$D"',
      '/e/*',
      '{}',
      ';',
      '+',
      'if=/i',
      'of=/o',
      'host:/p',
      'x=1',
      '@/f',
      's/a/b/w /x',
      '\'{print > "f"}\'',
      'inplace',
      'clone',
      'config',
      'install',
      '-exec',
      '-delete',
      '"a b"',
    );
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.array(arg, { maxLength: 6 }), (name, args) => {
        const cmd = `${name === '!' || name === '[' || name === '[[' ? `${name} ` : name} ${args.join(' ')}`;
        const r = extractAccesses(cmd, ctx);
        expect(Array.isArray(r.accesses)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
