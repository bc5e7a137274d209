import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractAccesses, parseScript } from '../src/index.js';
import { FIXTURE_ENV, fakeContext } from './helpers.js';

// The fast path must mean exactly what bash-parser means: same accesses, same origins, same certainty.

const ctx = fakeContext(FIXTURE_ENV);
const key = (cmd: string, parse: 'auto' | 'full') =>
  extractAccesses(cmd, ctx, { parse, budget: 60_000 }).accesses.map(
    (a) => `${a.op} ${a.scope} ${a.path} ${a.certain} ${a.origin} ${a.onLink ?? false}`,
  );

/**
 * The same accesses — except that bash-parser reads a text with `N>&M` masked (it misreads them), so where a
 * pipe's paths depend on such a redirect its tree is read conservatively: it may only be more uncertain.
 */
function agrees(cmd: string): void {
  const auto = key(cmd, 'auto');
  const full = key(cmd, 'full');
  if (/[<>]&\s*[0-9-]/.test(cmd) && /\|/.test(cmd) && full.some((k) => k.includes(' false '))) return;
  expect(auto).toEqual(full);
}

function isFast(cmd: string): boolean {
  try {
    return parseScript(cmd, 'auto').fast;
  } catch {
    return false;
  }
}

function fullParses(cmd: string): boolean {
  try {
    parseScript(cmd, 'full');
    return true;
  } catch {
    return false;
  }
}

const dir = join(import.meta.dirname, 'fixtures');
const commands = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== ''),
  )
  .map((l) => (JSON.parse(l) as { cmd: string }).cmd);

describe('fast path = bash-parser', () => {
  it('agrees on every fast-path command of the fixture corpus', () => {
    const fast = commands.filter(isFast);
    // Most of the corpus is simple commands: the comparison must cover a real share of it.
    expect(fast.length).toBeGreaterThan(400);
    for (const cmd of fast) expect(key(cmd, 'auto'), cmd).toEqual(key(cmd, 'full'));
  });

  it('agrees on compound scripts split into fast and bash-parser parts', () => {
    // Scripts bash-parser parses whole: the split parse (`auto`) must mean the same.
    const compound = commands.filter((cmd) => !isFast(cmd) && fullParses(cmd));
    expect(compound.length).toBeGreaterThan(60);
    for (const cmd of compound) expect(key(cmd, 'auto'), cmd).toEqual(key(cmd, 'full'));
    const script = compound.slice(0, 40).join('\n');
    expect(key(script, 'auto')).toEqual(key(script, 'full'));
  });

  it('agrees on random simple commands', () => {
    const word = fc.oneof(
      fc.constantFrom(
        '/etc/passwd',
        'a.txt',
        './x',
        '~/y',
        '/tmp/o',
        '-r',
        '-f',
        '--',
        '-t',
        '/d',
        '*.ts',
        '/e*/p',
        'x=1',
      ),
      fc.constantFrom(
        '"/a b"',
        "'/c d'",
        '/e"t"c',
        '\\/x',
        '$D/f',
        '${D}/g',
        '$UNSET',
        '"$SP"',
        '/{a,b}/c',
        '$(pwd)',
        '`id`',
      ),
    );
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
      'find',
      'tar cf',
      'X=/etc',
    );
    const redirect = fc.constantFrom('', ' > /o', ' >> o', ' < /i', ' 2>&1', ' 2> /e', ' &> /l', ' >| p');
    const command = fc
      .tuple(name, fc.array(word, { maxLength: 4 }), redirect)
      .map(([n, ws, r]) => `${n} ${ws.join(' ')}${r}`);
    const sep = fc.constantFrom(' && ', ' || ', '; ', ' | ', ' & ', '\n');
    const list = fc
      .tuple(command, fc.array(fc.tuple(sep, command), { maxLength: 3 }))
      .map(([c, rest]) => c + rest.map(([s, x]) => s + x).join(''));
    fc.assert(
      fc.property(list, (cmd) => {
        if (!isFast(cmd)) return;
        agrees(cmd);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees on random compound scripts (where bash-parser parses them whole)', () => {
    const simple = fc
      .tuple(
        fc.constantFrom('cat', 'rm -r', 'cd', 'cp', 'echo', 'ln -s'),
        fc.array(fc.constantFrom('/a', 'b', '"$v"', '/c/*', '~/d', 'e f'), { maxLength: 3 }),
        fc.constantFrom('', ' > /o', ' < /i', ' 2>&1'),
      )
      .map(([n, ws, r]) => `${n} ${ws.join(' ')}${r}`);
    const sep = fc.constantFrom('; ', '\n', ' && ', ' || ', ' | ', ' & ');
    const compound: fc.Arbitrary<string> = fc.letrec((tie) => ({
      cmd: fc.oneof(
        { weight: 4, arbitrary: simple },
        {
          weight: 1,
          arbitrary: fc.tuple(tie('list'), tie('list')).map(([a, b]) => `if ${a}; then ${b}; fi`),
        },
        { weight: 1, arbitrary: tie('list').map((l) => `for v in /x /y; do ${l}; done`) },
        { weight: 1, arbitrary: tie('list').map((l) => `while cat /w; do ${l}; done`) },
        { weight: 1, arbitrary: tie('list').map((l) => `( ${l} )`) },
        { weight: 1, arbitrary: tie('list').map((l) => `{ ${l}; }`) },
        { weight: 1, arbitrary: tie('list').map((l) => `case $v in a) ${l};; *) rm /z;; esac`) },
        { weight: 1, arbitrary: tie('list').map((l) => `g() { ${l}; }`) },
      ),
      list: fc
        .tuple(
          tie('cmd') as fc.Arbitrary<string>,
          fc.array(fc.tuple(sep, tie('cmd') as fc.Arbitrary<string>), { maxLength: 3 }),
        )
        .map(([c, rest]) => c + rest.map(([x, y]) => x + y).join('')),
    })).list as fc.Arbitrary<string>;
    let compared = 0;
    fc.assert(
      fc.property(compound, (cmd) => {
        if (!fullParses(cmd)) return;
        compared++;
        expect(key(cmd, 'auto')).toEqual(key(cmd, 'full'));
      }),
      { numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(100);
  });
});
