import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shell } from '../src/index.js';
import { denyUnder } from './denyUnder.js';

// Attacks on the shell engine (issue 13, classes 1 and 2), each run for real under bash (or dash) in a
// scratch tree first: the attack must copy the secret canary into the workspace (the effect exists), and
// the guard must deny it; its benign twin — the same construct on a workspace file — must be allowed.
// `S` stands for the secret directory, `W` for the workspace.

let root: string;
let ws: string;
let secret: string;
let home: string;
let ctx: CallContext;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-engine-')));
  ws = join(root, 'ws');
  secret = join(root, 'secret');
  home = join(root, 'home');
  for (const d of [ws, secret, home]) mkdirSync(d);
  writeFileSync(join(secret, 'canary'), 'SECRET');
  writeFileSync(join(ws, 'canary'), 'ok');
  // `L` in both: a link to the workspace's sub (bash's logical `cd L && cd ..` returns beside the link).
  mkdirSync(join(ws, 'sub'));
  symlinkSync(join(ws, 'sub'), join(secret, 'L'));
  symlinkSync(join(ws, 'sub'), join(ws, 'L'));
  const env = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' };
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fill = (cmd: string, dir: string) => cmd.replaceAll('S', dir);

/** Runs the command under a real shell in the workspace and reports whether it produced `out`. */
function effect(cmd: string, sh: string): boolean {
  rmSync(join(ws, 'out'), { force: true });
  spawnSync(sh, ['-c', cmd], { cwd: ws, env: ctx.env as NodeJS.ProcessEnv, timeout: 5000, input: '' });
  const made = existsSync(join(ws, 'out'));
  rmSync(join(ws, 'out'), { force: true });
  return made;
}

async function decide(cmd: string) {
  const guard = createGuard({ plugins: [shell(), denyUnder([secret])] });
  return guard.check({ tool: 'shell_exec', args: { command: cmd } }, ctx, { resolvePrompts: false });
}

interface Case {
  /** With `S` for the directory it reads from: the secret one in the attack, the workspace in the twin. */
  cmd: string;
  sh?: 'bash' | 'dash';
  /**
   * The benign twin where the attack's value is one the guard cannot know (read from stdin): the same
   * construct with the unknown value not reaching a path — an uncertain answer there must be earned.
   */
  twin?: string;
}

const stateCases: Case[] = [
  { cmd: 'HOME=S; cp ~/canary out' },
  { cmd: 'export HOME=S; cp ~/canary out' },
  { cmd: 'read HOME <<< S; cp ~/canary out', twin: 'read HOME <<< S; cp canary out' },
  { cmd: 'printf -v HOME %s S; cp ~/canary out', twin: 'printf -v HOME %s S; cp canary out' },
  { cmd: 'for HOME in S; do cp ~/canary out; done' },
  { cmd: 'declare HOME=S; cp ~/canary out' },
  { cmd: 'mapfile -t HOME <<< S; cp ~/canary out', twin: 'mapfile -t HOME <<< S; cp canary out' },
  {
    cmd: 'while read HOME; do cp ~/canary out; done <<< S',
    twin: 'while read HOME; do cp canary out; done <<< S',
  },
  { cmd: 'PWD=S; cp ~+/canary out' },
  { cmd: 'OLDPWD=S; cp ~-/canary out' },
  { cmd: "HOME=S bash -c 'cp ~/canary out'" },
  { cmd: 'f() { cp ~/canary out; }; HOME=S; f' },
  { cmd: 'f() { local HOME=S; cp ~/canary out; }; f' },
  { cmd: 'f() { HOME=S; }; f; cp ~/canary out' },
  { cmd: "cp() { :; }; bash -c 'cp S/canary out'" },
  { cmd: 'X=~; HOME=S; X=~; cp $X/canary out' },
  { cmd: '(cd S/L && cd .. && cat canary) > out' },
  { cmd: '(cd S/L/.. && cat canary) > out' },
];

const codeCases: Case[] = [
  { cmd: "test -v 'a[$(cp S/canary out)]'" },
  { cmd: "[ -v 'a[$(cp S/canary out)]' ]" },
  { cmd: "[[ -v 'a[$(cp S/canary out)]' ]]" },
  { cmd: "x='a[$(cp S/canary out)]'; [[ $x -eq 1 ]]" },
  { cmd: "x='a[$(cp S/canary out)]'; [[ 1 -lt x ]]" },
  { cmd: "printf -v 'a[$(cp S/canary out)]' x" },
  { cmd: "read 'a[$(cp S/canary out)]' <<< y" },
  { cmd: "declare 'a[$(cp S/canary out)]=1'" },
  { cmd: "let 'a[$(cp S/canary out)]'" },
  { cmd: "y='a[$(cp S/canary out)]'; (( y ))" },
  { cmd: "y='a[$(cp S/canary out)]'; echo $(( y + 1 ))" },
  { cmd: "i='a[$(cp S/canary out)]'; echo ${b[i]}" },
  { cmd: 'z=\'$(cp S/canary out)\'; echo "${z@P}"' },
  { cmd: 'echo ${b[$(cp S/canary out)]}' },
  { cmd: "z=abc; w='a[$(cp S/canary out)]'; echo ${z:w}" },
  { cmd: "compgen -W '$(cp S/canary out)'" },
  // -C appends arguments to the command: `;:` absorbs them.
  { cmd: "compgen -C 'cp S/canary out;:' x" },
  { cmd: "trap -- 'cp S/canary out' EXIT" },
  { cmd: "mapfile -C 'cp S/canary out;:' -c 1 x <<< y" },
  { cmd: "declare -i n; n='a[$(cp S/canary out)]'" },
  { cmd: "f() { local 'a[$(cp S/canary out)]=1'; }; f" },
  { cmd: '((cp S/canary out))', sh: 'dash' },
  { cmd: "dash -c '((cp S/canary out))'" },
  { cmd: "sh -c '((cp S/canary out))'" },
];

function suite(title: string, cases: Case[]): void {
  describe(title, () => {
    it(`has at least 10 attacks (${cases.length})`, () => expect(cases.length).toBeGreaterThanOrEqual(10));
    for (const c of cases) {
      const sh = c.sh ?? 'bash';
      it(`${sh}: ${c.cmd}`, async () => {
        const attack = fill(c.cmd, secret);
        const benign = fill(c.twin ?? c.cmd, ws);
        // Reality first: the attack really copies the secret, the twin really copies the workspace file.
        expect(effect(attack, sh), `${attack} has no effect under ${sh}`).toBe(true);
        expect(effect(benign, sh), `${benign} has no effect under ${sh}`).toBe(true);
        // dash-only cases: what the guard sees is `sh -c` (which may be dash).
        const seen = (cmd: string) => (c.sh === 'dash' ? `sh -c '${cmd}'` : cmd);
        expect((await decide(seen(attack))).action, attack).toBe('deny');
        expect((await decide(seen(benign))).action, benign).toBe('allow');
      });
    }
  });
}

suite('class 1: shell state that changes what a path means', stateCases);
suite('class 2: code hidden in data', codeCases);
