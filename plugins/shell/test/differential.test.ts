import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractAccesses, parseScript } from '../src/index.js';
import { FIXTURE_ENV, fakeContext } from './helpers.js';

// The fast path must mean exactly what bash-parser means: same accesses, same origins, same certainty.

const ctx = fakeContext(FIXTURE_ENV);
const key = (cmd: string, parse: 'auto' | 'full') =>
  extractAccesses(cmd, ctx, { parse }).accesses.map(
    (a) => `${a.op} ${a.scope} ${a.path} ${a.certain} ${a.origin} ${a.onLink ?? false}`,
  );

function isFast(cmd: string): boolean {
  try {
    return parseScript(cmd, 'auto').fast;
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
        expect(key(cmd, 'auto')).toEqual(key(cmd, 'full'));
      }),
      { numRuns: 300 },
    );
  });
});
