import { posix } from 'node:path';
import type { SubtreeFilter } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { type ParsedArgs, parseArgs, values } from '../../argv.js';
import { literal, unknownOptions } from '../../spec.js';
import { harmlessValue, type RiskGroup, riskOf } from './configRisks.js';
import { GitCall, HEAD_TAG, type Plan, TRACKING_TAG } from './gitCall.js';
import { configValue } from './gitConfig.js';
import { findRepo, type GitRepo } from './gitRepo.js';
import { presentHooks } from './hooks.js';
import { clone, init } from './newRepo.js';
import { optionSpec } from './optionSpec.js';
import { loadRepoState } from './repoState.js';
import { SUBCOMMAND_OPTIONS } from './subcommandOptions.js';
import { SUBCOMMANDS } from './subcommandTable.js';

/** git's own options, before the subcommand (git(1)). */
export const GLOBAL = {
  short: 'Cc',
  shortFlags: 'pPvh',
  long: ['git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix', 'list-cmds'],
  flags: [
    'exec-path',
    'html-path',
    'man-path',
    'info-path',
    'paginate',
    'no-pager',
    'no-replace-objects',
    'bare',
    'literal-pathspecs',
    'glob-pathspecs',
    'noglob-pathspecs',
    'icase-pathspecs',
    'no-optional-locks',
    'version',
    'help',
    'no-advice',
  ],
  posix: true,
};

/** `-c key=value` pairs given on the command line, as config entries. */
export function commandLineConfig(cx: CommandContext, p: ParsedArgs): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  for (const c of values(p, '-c')) {
    if (c.uncertain !== undefined) {
      cx.uncertain('git -c: the setting is not known');
      continue;
    }
    const eq = c.value.indexOf('=');
    out.push({
      key: (eq < 0 ? c.value : c.value.slice(0, eq)).toLowerCase(),
      value: eq < 0 ? 'true' : c.value.slice(eq + 1),
    });
  }
  return out;
}

export function composeDir(dirs: readonly Field[]): Field {
  let dir: Field = literal('.');
  for (const c of dirs)
    dir = c.value.startsWith('/') || c.tilde ? c : { ...c, value: `${dir.value}/${c.value}` };
  return dir;
}

/**
 * git [-C DIR] [-c k=v] [--git-dir D] [--work-tree W] SUBCOMMAND …: finds the repository the way git does,
 * reads its config, index and ignore files at check time, and emits what the subcommand really touches —
 * the git dir, the worktree filtered to the files git reads or writes there, and the files options name.
 * Code the repository would run (hooks, code-running config) and unknown subcommands or options are
 * uncertain.
 */
export const git: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, GLOBAL);
  unknownOptions(cx, p);
  const cli = commandLineConfig(cx, p);
  if (cx.args.some((f) => f.value.startsWith('--exec-path=')))
    cx.uncertain('git --exec-path runs subcommands from another directory');
  if (values(p, '--config-env').length > 0)
    cx.uncertain('git --config-env takes a setting from the environment');
  const base = composeDir(values(p, '-C'));
  const at = (f: Field): Field =>
    f.value.startsWith('/') || f.tilde || f.uncertain !== undefined || base.value === '.'
      ? f
      : { ...f, value: `${base.value}/${f.value}` };
  const [subField, ...rest] = p.operands;
  if (subField === undefined) return; // `git` alone prints usage
  if (subField.uncertain !== undefined) {
    cx.uncertain('git: the subcommand is not known');
    return;
  }
  const sub = subField.value;
  if (sub === 'clone' || sub === 'init') {
    riskyCommandLine(cx, sub, cli, ['always', 'network', 'content']);
    (sub === 'clone' ? clone : init)(cx, rest, at);
    return;
  }
  const entry = SUBCOMMANDS[sub];
  if (entry === undefined) {
    cx.uncertain(`git ${sub}: not a subcommand we model (an alias or git-${sub} from PATH runs code)`);
    return;
  }
  const baseReal = cx.resolveDir(base);
  if (baseReal === null) {
    cx.uncertain(`git: the directory ${base.raw} is not known for certain`);
    return;
  }
  const repo = locate(cx, p, baseReal, at);
  if (repo === null) return;
  const state = loadRepoState(cx, repo);
  if (state.configUncertain !== undefined) cx.uncertain(`git: ${state.configUncertain}`);
  const { action, args } = entry.actions ? splitAction(rest) : { action: '', args: rest };
  const specText = optionsFor(sub, action);
  const sp = parseArgs(args, { ...optionSpec(specText), numeric: entry.numeric === true });
  unknownOptions(cx, sp);
  const g = new GitCall(cx, sub, sp, base, state);
  const plan: Plan = entry.run(g, action, args);
  for (const dir of new Set([state.gitDir, state.commonDir])) gitDirAccesses(cx, dir, plan);
  const risks: RiskGroup[] = ['always', ...plan.risks];
  riskyConfig(cx, sub, state.config, risks, 'the repository config');
  riskyCommandLine(cx, sub, cli, risks);
  if (plan.hooks.length > 0 && !state.missing) hooks(cx, sub, state, cli, plan.hooks);
};

function optionsFor(sub: string, action: string): string {
  if (sub === 'stash' && action === '') return SUBCOMMAND_OPTIONS['stash push']!;
  return SUBCOMMAND_OPTIONS[`${sub} ${action}`] ?? SUBCOMMAND_OPTIONS[sub] ?? '-';
}

/**
 * What a subcommand does to the git dir: a writer writes beneath it (index, HEAD, locks, objects, refs, logs —
 * the kernel sees `index.lock` renamed over `index`, objects created under `objects/xx/`), so it is a subtree
 * write. The config and hooks are not rewritten unless the subcommand changes the config, so a later git
 * command of the line that reads them is not taken as reading something this one wrote (`skipsConfig`).
 */
function gitDirAccesses(cx: CommandContext, dir: string, plan: Plan): void {
  if (plan.gitDir === 'none') return;
  cx.emit(literal(dir), 'read', { scope: 'subtree', tag: 'git-dir' });
  if (plan.gitDir === 'read') return;
  const filter =
    plan.gitDir === 'config' ? undefined : plan.gitDir === 'tracking' ? SKIPS_HOOKS : SKIPS_CONFIG_AND_HOOKS;
  // The tag tells the network model what kind of write it is (gitNetConfig.ts, gitRemotes.ts): upstream
  // tracking (the config's `branch.*` only, never a remote's URL), HEAD switched to another branch, or
  // neither (HEAD still names the same branch, the config untouched).
  const tag = plan.gitDir === 'tracking' ? TRACKING_TAG : plan.moves ? HEAD_TAG : 'git-dir';
  cx.emit(literal(dir), 'write', { scope: 'subtree', tag, ...(filter ? { filter } : {}) });
}

const SKIPS_HOOKS: SubtreeFilter = {
  name: 'git dir without hooks',
  skips: (rel) => rel === 'hooks' || rel.startsWith('hooks/'),
};

const SKIPS_CONFIG_AND_HOOKS: SubtreeFilter = {
  name: 'git dir without config and hooks',
  skips: (rel) => rel === 'config' || rel === 'hooks' || rel.startsWith('hooks/'),
};

/** `stash push -u`: the action word (if any) and the arguments after it. */
function splitAction(rest: readonly Field[]): { action: string; args: readonly Field[] } {
  const first = rest[0];
  if (first === undefined || first.value.startsWith('-')) return { action: '', args: rest };
  return { action: first.value, args: rest.slice(1) };
}

/** The repository: `--git-dir`/`--work-tree` when given, else discovery from the (real) base directory. */
export function locate(
  cx: CommandContext,
  p: ParsedArgs,
  baseReal: string,
  at: (f: Field) => Field,
): GitRepo | null {
  const real = (f: Field | undefined): string | null | undefined =>
    f === undefined ? undefined : cx.resolveDir(at(f));
  const gitDir = real(values(p, '--git-dir')[0]);
  const workTree = real(values(p, '--work-tree')[0]);
  if (gitDir === null || workTree === null) {
    cx.uncertain('git: --git-dir/--work-tree is not known for certain');
    return null;
  }
  if (gitDir !== undefined) return { gitDir, worktree: workTree ?? baseReal };
  const found = findRepo(baseReal);
  if (found === null) {
    cx.uncertain(`git: the .git file above ${baseReal} cannot be read`);
    return null;
  }
  return workTree !== undefined ? { ...found, worktree: workTree } : found;
}

function riskyConfig(
  cx: CommandContext,
  sub: string,
  entries: readonly { key: string; value: string }[],
  groups: readonly RiskGroup[],
  where: string,
): void {
  for (const { key, value } of entries) {
    const g = riskOf(key);
    // `pager.<subcommand>` turns paging on for that subcommand, whatever it is.
    const reached =
      g !== undefined && (key.startsWith('pager.') ? key === `pager.${sub}` : groups.includes(g));
    if (reached && !harmlessValue(key, value))
      cx.uncertain(`git ${sub}: ${key} in ${where} runs a program (code from the workspace)`);
  }
}

function riskyCommandLine(
  cx: CommandContext,
  sub: string,
  cli: readonly { key: string; value: string }[],
  groups: readonly RiskGroup[],
): void {
  riskyConfig(cx, sub, cli, groups, 'git -c');
}

/** Hooks the subcommand runs, present and executable in the hooks directory: code from the workspace. */
function hooks(
  cx: CommandContext,
  sub: string,
  state: ReturnType<typeof loadRepoState>,
  cli: readonly { key: string; value: string }[],
  names: readonly string[],
): void {
  const configured =
    cli.find((e) => e.key === 'core.hookspath')?.value ?? configValue(state.config, 'core.hookspath');
  let dir = `${state.commonDir}/hooks`;
  if (configured !== undefined) {
    if (configured.startsWith('~') || configured.includes('$')) {
      cx.uncertain(`git ${sub}: core.hooksPath ${configured} is not known for certain`);
      return;
    }
    // A relative hooksPath is relative to the worktree root (or the git dir of a bare repository).
    dir = posix.resolve(state.worktree ?? state.gitDir, configured);
  }
  for (const h of presentHooks(dir, names))
    cx.uncertain(`git ${sub} runs the ${h} hook in ${dir} (code from the workspace)`);
}
