import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { sedScriptEffects } from '../../src/programs/text/sedScript.js';

/**
 * GNU sed itself is the oracle for the sed-script reader: random scripts built from tricky fragments
 * (delimiters inside bracket expressions, `a` text holding `;w`, labels ending at `;`, `e` commands, files
 * with and without a space) run under strace; every file sed opens in the scratch directory must be one the
 * reader reported (read, written, or named inside an `e` command), or the reader must report a problem.
 */
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tg-seddiff-')));
const d = join(dir, 'd');
mkdirSync(d);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'in.txt'), 'a/b]c\nfoo x\n#n\n');
for (const n of [1, 2, 3]) writeFileSync(join(d, `r${n}`), `r${n}\n`);

const fragments = [
  `1r ${d}/r1`,
  `r${d}/r2`,
  `$R ${d}/r3`,
  `w ${d}/w1`,
  `W${d}/w2`,
  `s/a/b/w ${d}/w3`,
  `s|[|]|x|gw${d}/w4`,
  `s/[/]/_/`,
  `s/a/\\/x/`,
  `y/ab/xy/`,
  `a foo;w ${d}/never1`,
  `i\\`,
  `c\\`,
  `/x/{p;w ${d}/w5`,
  '}',
  ':lab;p',
  // `t`, not `b`: an unconditional branch back to `:lab;p` loops forever (a run that never ends).
  't lab',
  't',
  '# a comment w /x',
  `e touch ${d}/e1`,
  `1e touch ${d}/e2`,
  '/foo/I p',
  '\\,a, d',
  '0~2 p',
  '1,+1 p',
  'l 5',
  'q',
  '$!N',
  'n;d',
  's/x/y/2g',
];

/** The files sed opens (or creates) inside the scratch directory, as strace shows them. */
function sedOpens(script: string): Set<string> | null {
  const trace = join(dir, 'trace');
  try {
    execFileSync(
      'strace',
      // `timeout` inside the trace kills sed itself: a timeout of strace alone would leave sed running.
      [
        '-f',
        '-qq',
        '-e',
        'trace=openat,open,creat',
        '-o',
        trace,
        'timeout',
        '-s',
        'KILL',
        '8',
        'sed',
        '-n',
        '-e',
        script,
        'in.txt',
      ],
      {
        cwd: dir,
        input: '',
        stdio: ['pipe', 'ignore', 'ignore'],
        timeout: 10_000,
      },
    );
  } catch {
    return null; // sed refused the script: it ran nothing
  }
  const opened = new Set<string>();
  for (const m of readFileSync(trace, 'utf8').matchAll(
    /open(?:at)?\((?:AT_FDCWD, )?"([^"]+)"[^=]*= (\d+|-1)/g,
  )) {
    if (m[1]!.startsWith(`${d}/`) && m[2] !== '-1') opened.add(m[1]!);
  }
  return opened;
}

describe('sed script reader agrees with GNU sed', () => {
  it('reports every file sed opens for random scripts (strace)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...fragments), { minLength: 1, maxLength: 6 }), (parts) => {
        const script = parts.join('\n');
        const opened = sedOpens(script);
        if (opened === null) return;
        const fx = sedScriptEffects(script);
        if (fx.problem !== undefined) return;
        for (const path of opened) {
          const known =
            fx.reads.includes(path) || fx.writes.includes(path) || fx.commands.some((c) => c.includes(path));
          expect(known, `${JSON.stringify(script)} opened ${path}`).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
    // 80 traced sed runs take ~7 s on an idle 2-core machine; a loaded one needs more.
  }, 180_000);

  it('does not invent files for text that only looks like a command', () => {
    expect(sedScriptEffects(`a foo;w ${d}/never1`)).toEqual({ reads: [], writes: [], commands: [] });
    expect(sedOpens(`a foo;w ${d}/never1`)).toEqual(new Set());
    // …and the oracle does see what sed opens.
    expect(sedOpens(`1r ${d}/r1\nw${d}/w9`)).toEqual(new Set([`${d}/r1`, `${d}/w9`]));
  });
});
