import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { extractAccesses, shell } from '@toolgate/shell';
import { runSuite } from './harness.js';

// bash-parser is the shell plugin's own dependency: load it from there to time it alone.
const requireFromShell = createRequire(fileURLToPath(import.meta.resolve('@toolgate/shell')));
const bashParse = requireFromShell('bash-parser') as (src: string) => unknown;

const SIMPLE =
  'cat src/index.ts src/util.ts | grep -n "export function" > out/exports.txt 2>&1 && wc -l out/x.txt';
const COMPOUND =
  'for f in src/*.ts; do if grep -q TODO "$f"; then echo "$f" >> out/todo.txt; fi; done; cd out && ls';
const LINE = [
  'cp -r src/lib out/lib && chmod -R 755 out/lib',
  'if [ -f out/lib/index.ts ]; then sed -i "s/foo/bar/" out/lib/index.ts; fi',
  'for f in out/lib/*.ts; do grep -n TODO "$f" >> out/todo.txt; done',
  'tar -czf out/lib.tgz -C out lib && rm -rf out/lib',
  'find src -name "*.ts" -exec wc -l {} \\; | sort -n > out/sizes.txt',
];

function script(chars: number): string {
  const lines: string[] = [];
  for (let k = 0; lines.join('\n').length < chars; k++) lines.push(LINE[k % LINE.length]!);
  return lines.join('\n');
}

export default async function shellBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-shell-bench-')));
  try {
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'src', 'lib'), { recursive: true });
    mkdirSync(join(ws, 'out'), { recursive: true });
    writeFileSync(join(ws, 'src', 'index.ts'), '');
    writeFileSync(join(ws, 'src', 'util.ts'), '');
    // An agent's environment has a PATH: program identity (issue 22) searches it for every command word.
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin' };
    const ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: join(root, 'home'), env };
    const guard = createGuard({
      plugins: [
        shell(),
        folderRules({
          rules: [
            { pattern: '<workspace>/**', access: 'write' },
            { pattern: '~/.ssh/**', access: 'deny' },
          ],
        }),
      ],
    });
    const long = script(2000);
    const call = (command: string) => ({ tool: 'shell_exec', args: { command } });
    let n = 0;
    // A different text each time: no parse memo hit, the whole pipeline runs.
    const fresh = (command: string) => `${command} # ${n++}`;
    console.log(
      `simple ${SIMPLE.length} chars, compound ${COMPOUND.length} chars, script ${long.length} chars`,
    );
    const d = await guard.check(call(SIMPLE), ctx);
    if (d.action !== 'allow')
      throw new Error(`bench setup: simple command was ${d.action}: ${d.reasons[0]?.reason}`);
    const m = await runSuite('shell: decision time with folder rules (guard.check)', [
      { name: 'bash-parser alone, simple', fn: () => bashParse(SIMPLE) },
      // bash-parser rejects `do if` on one line; time it on the form it accepts.
      { name: 'bash-parser alone, compound', fn: () => bashParse(COMPOUND.replace('do if', 'do\nif')) },
      { name: 'bash-parser alone, 2000-char script', fn: () => bashParse(long) },
      { name: 'extractAccesses, simple (unmemoised)', fn: () => extractAccesses(fresh(SIMPLE), ctx) },
      { name: 'check, simple 100 chars (unmemoised)', fn: () => guard.check(call(fresh(SIMPLE)), ctx) },
      { name: 'check, simple 100 chars (parse memoised)', fn: () => guard.check(call(SIMPLE), ctx) },
      { name: 'check, compound 100 chars (unmemoised)', fn: () => guard.check(call(fresh(COMPOUND)), ctx) },
      { name: 'check, compound 100 chars (parse memoised)', fn: () => guard.check(call(COMPOUND), ctx) },
      { name: 'check, 2000-char script (unmemoised)', fn: () => guard.check(call(fresh(long)), ctx) },
      { name: 'check, 2000-char script (parse memoised)', fn: () => guard.check(call(long), ctx) },
    ]);
    const us = (k: string) => ((m.get(k) ?? Number.NaN) / 1000).toFixed(1);
    console.log(`simple: ${us('check, simple 100 chars (unmemoised)')} µs (goal ≤ 20 µs)`);
    console.log(
      `compound: ${us('check, compound 100 chars (unmemoised)')} µs vs bash-parser ${us('bash-parser alone, compound')} µs (goal ≤ +20 %)`,
    );
    console.log(
      `script: ${us('check, 2000-char script (unmemoised)')} µs vs bash-parser ${us('bash-parser alone, 2000-char script')} µs`,
    );
    await ratioVsReadFile(guard, ctx);
    pathological(ctx);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Issue 13: a simple command's shell check should cost ≤ 1.5 × a read_file decision on the same path. */
async function ratioVsReadFile(
  guard: ReturnType<typeof createGuard>,
  ctx: { cwd: string } & Record<string, unknown>,
): Promise<void> {
  const path = 'src/index.ts';
  const shellCall = { tool: 'shell_exec', args: { command: `cat ${path}` } };
  const fileCall = { tool: 'read_file', args: { path } };
  const c = ctx as unknown as Parameters<typeof guard.check>[1];
  for (const call of [shellCall, fileCall]) {
    const d = await guard.check(call, c);
    if (d.action !== 'allow') throw new Error(`bench setup: ${call.tool} was ${d.action}`);
  }
  const m = await runSuite('shell check vs read_file decision, same path', [
    { name: 'read_file src/index.ts', fn: () => guard.check(fileCall, c) },
    { name: 'shell: cat src/index.ts (parse memoised)', fn: () => guard.check(shellCall, c) },
  ]);
  const ratio =
    (m.get('shell: cat src/index.ts (parse memoised)') ?? Number.NaN) /
    (m.get('read_file src/index.ts') ?? Number.NaN);
  console.log(`shell check / read_file decision: ${ratio.toFixed(2)}× (goal ≤ 1.5×)`);
}

const nestedLoops = (n: number) =>
  `${Array.from({ length: n }, (_, k) => `for i${k} in a b; do x=$i${k};`).join(' ')} cat $x;${' done;'.repeat(n)}`;

/** Issue 13, class 5: each pathological input gets a decision within the budget (default 50 ms CPU). */
function pathological(ctx: Record<string, unknown>): void {
  const cases: [string, string][] = [
    ['30 nested loops', nestedLoops(30)],
    ['20 nested loops', nestedLoops(20)],
    [
      '20,000-character script',
      Array.from({ length: 600 }, (_, k) => `if [ -f a${k} ]; then cp a${k} b${k}; fi`)
        .join('\n')
        .slice(0, 20_000),
    ],
    ['{a,b}×25', `echo ${'{a,b}'.repeat(25)}`],
    ['200-deep $( )', `${'$('.repeat(200)}echo x${')'.repeat(200)}`],
    ['1 MB command', `echo ${'a '.repeat(500_000)}`],
  ];
  console.log('\n## shell: pathological inputs (one run each, default budget)');
  const rows = cases.map(([name, cmd]) => {
    extractAccesses(`${cmd} #warm`, ctx as never);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const r = extractAccesses(cmd, ctx as never);
    const cpu = process.cpuUsage(cpu0);
    return {
      case: name,
      chars: cmd.length,
      'wall ms': Number((performance.now() - t0).toFixed(1)),
      'cpu ms': Number(((cpu.user + cpu.system) / 1000).toFixed(1)),
      answer: r.accesses.some((a) => a.reason?.startsWith('SHELL_BUDGET'))
        ? 'SHELL_BUDGET (uncertain)'
        : r.uncertain
          ? 'uncertain'
          : 'certain',
    };
  });
  console.table(rows);
}
