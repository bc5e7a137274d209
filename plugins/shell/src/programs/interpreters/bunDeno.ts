import type { SubtreeFilter } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';
import { runsCode } from './runsCode.js';

// A program file bun/deno run directly (`bun index.ts`, `deno run main.ts`).
const SOURCE = /\.(?:[cm]?[jt]sx?|json)$/;

function unsure(cx: CommandContext, why: string): void {
  cx.uncertain(why, 'write');
}

// The files deno fmt/lint/check open (deno docs: supported extensions); a `.env` beside them is never read.
const DENO_SOURCES: SubtreeFilter = {
  name: 'deno fmt/lint source files',
  skips: (rel, isDir) =>
    !isDir &&
    !/\.(?:[cm]?[jt]sx?|jsonc?|md|markdown|css|scss|sass|less|html|svelte|vue|astro|ya?ml|ipynb|sql)$/i.test(
      rel,
    ),
};

/** Options before the file: only flags that change nothing we judge; anything else is uncertain. */
function skipFlags(cx: CommandContext, args: readonly Field[], harmless: RegExp): number | null {
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (args[i]!.uncertain !== undefined || !v.startsWith('-')) break;
    if (!harmless.test(v)) {
      unsure(cx, `${cx.name}: option ${v} is not in its table`);
      return null;
    }
  }
  return i;
}

/**
 * bun (1.x `bun --help`): `bun FILE` / `bun run FILE` run a workspace file (read, operands passed on);
 * `bun run SCRIPT` runs a package.json script and `bun x`, `-e`, `build`, `create` run code we do not see
 * (uncertain); `bun install`/`add`/`remove`/`update` write the project directory (as `npm install` does); `bun test` runs
 * the workspace's tests, as `node --test` does.
 */
const bun: CommandHandler = (cx) => {
  const [sub, ...rest] = cx.args;
  if (!sub) return unsure(cx, 'bun without a command starts a REPL');
  const v = sub.value;
  if (sub.uncertain !== undefined) return unsure(cx, `bun command is not known: ${sub.uncertain}`);
  if (['--version', '-v', '--help', '-h', '--revision'].includes(v)) return;
  if (['install', 'i', 'add', 'a', 'remove', 'rm', 'update', 'link', 'unlink'].includes(v)) {
    if (rest.some((f) => f.value === '-g' || f.value === '--global'))
      return unsure(cx, 'bun -g writes the global install directory');
    // As `npm install` (buildTools): the project directory, where node_modules, the lockfile and lifecycle
    // scripts' outputs land.
    cx.write(literal('.'), { scope: 'subtree', tag: 'install' });
    // The project's own lifecycle scripts (and trusted dependencies') run unless --ignore-scripts.
    if (!rest.some((f) => f.value === '--ignore-scripts'))
      runsCode(cx, undefined, `bun ${v} (lifecycle scripts)`);
    return;
  }
  if (v === 'test') {
    const k = skipFlags(cx, rest, /^--(watch|bail|only|todo|coverage|timeout=\d+|rerun-each=\d+)$/);
    if (k !== null) for (const f of rest.slice(k)) if (/[/.]/.test(f.value)) cx.read(f, { tag: 'test' });
    runsCode(cx, undefined, 'bun test');
    return;
  }
  const runArgs = v === 'run' ? rest : cx.args;
  const k = skipFlags(cx, runArgs, /^--(watch|hot|silent|smol|bun)$/);
  if (k === null) return;
  const [file, ...params] = runArgs.slice(k);
  if (!file) return unsure(cx, 'bun run without a file');
  if (SOURCE.test(file.value) || file.value.includes('/')) {
    runsCode(cx, file, `bun ${file.raw}`);
    cx.unknownOperands(params);
  } else unsure(cx, `bun ${file.value} runs a package script or a command we do not analyse`);
};

/**
 * deno (2.x `deno --help`): `deno run [flags] FILE` runs a local file (a URL is remote code: uncertain;
 * deno's own permission flags do not change what we report); `deno fmt` rewrites files; `deno lint` and
 * `deno check` read them; `eval`, `repl`, `task`, `install`, `compile`, `upgrade`, `x` are uncertain.
 */
const deno: CommandHandler = (cx) => {
  const [sub, ...rest] = cx.args;
  if (!sub || sub.uncertain !== undefined) return unsure(cx, 'deno without a known command starts a REPL');
  const v = sub.value;
  if (['--version', '-V', '--help', '-h'].includes(v)) return;
  const flags =
    /^(-A|--allow-[a-z-]+(=.*)?|--deny-[a-z-]+(=.*)?|-q|--quiet|--watch|--no-check|--check|--reload|-r|--unstable(-[a-z-]+)?|--node-modules-dir(=\w+)?|--no-prompt)$/;
  if (v === 'run' || SOURCE.test(v)) {
    const args = v === 'run' ? rest : cx.args;
    const k = skipFlags(cx, args, flags);
    if (k === null) return;
    const [file, ...params] = args.slice(k);
    if (!file) return unsure(cx, 'deno run without a file');
    if (/^(https?|npm|jsr|data):/i.test(file.value)) return unsure(cx, `deno runs remote code ${file.value}`);
    runsCode(cx, file, `deno ${file.raw}`);
    cx.unknownOperands(params);
    return;
  }
  if (v === 'test') {
    // Like `node --test`: the workspace's test files run; named ones are read.
    const k = skipFlags(cx, rest, flags);
    if (k !== null) for (const f of rest.slice(k)) cx.read(f, { tag: 'test' });
    runsCode(cx, undefined, 'deno test');
    return;
  }
  if (v === 'fmt' || v === 'lint' || v === 'check') {
    const k = skipFlags(cx, rest, /^(--check|-q|--quiet|--watch|--fix|--no-check|--allow-[a-z-]+(=.*)?|-A)$/);
    if (k === null) return;
    const fix =
      v === 'fmt' ? !rest.some((f) => f.value === '--check') : rest.some((f) => f.value === '--fix');
    const files = rest.slice(k);
    // Without files, deno fmt/lint walk the cwd (honouring deno.json's include/exclude, which we do not read).
    for (const f of files.length > 0 ? files : [literal('.')])
      cx.emit(f, fix ? 'write' : 'read', { scope: 'subtree', tag: v, filter: DENO_SOURCES });
    return;
  }
  unsure(cx, `deno ${v} runs code or changes files we do not analyse`);
};

export const bunDeno: Record<string, CommandHandler> = { bun, deno };
