import type { Field } from '../../../state/expandWord.js';
import { has, values } from '../../argv.js';
import { literal } from '../../spec.js';
import { riskOf } from './configRisks.js';
import type { GitCall, Plan } from './gitCall.js';
import { HOOKS, REF_AND_INDEX_HOOKS } from './hooks.js';

// Subcommands that read or write refs and configuration in the git dir only, and the network ones.

const READ: Plan = { gitDir: 'read', risks: ['pager'], hooks: [] };
const WRITE: Plan = { gitDir: 'write', risks: [], hooks: REF_AND_INDEX_HOOKS };

/** branch: lists unless asked to create, delete, rename, copy or set upstreams. */
export function branch(g: GitCall): Plan {
  if (has(g.p, '--edit-description')) g.uncertain('--edit-description opens an editor');
  const writes =
    has(g.p, '-d', '-D', '--delete', '-m', '-M', '--move', '-c', '-C', '--copy', '-u', '--set-upstream-to') ||
    has(g.p, '--unset-upstream', '-t', '--track', '-f', '--force') ||
    (g.p.operands.length > 0 &&
      !has(g.p, '-l', '--list', '--contains', '--merged', '--no-merged', '--points-at'));
  if (!writes) return READ;
  // Renaming, copying, deleting or tracking a branch rewrites its `branch.NAME.*` config section.
  const config =
    has(g.p, '-d', '-D', '--delete', '-m', '-M', '--move', '-c', '-C', '--copy', '-u', '--set-upstream-to') ||
    has(g.p, '--unset-upstream', '-t', '--track', '--edit-description');
  // Renaming the current branch rewrites HEAD to the new name.
  const moves = has(g.p, '-m', '-M', '--move');
  return config ? { ...WRITE, gitDir: 'tracking', ...(moves ? { moves } : {}) } : WRITE;
}

/** tag: lists unless creating or deleting; `-F` reads a message file; signing runs gpg. */
export function tag(g: GitCall): Plan {
  for (const f of values(g.p, '-F', '--file')) if (f.value !== '-') g.path(f, 'read');
  const list = has(g.p, '-l', '--list', '-n', '--contains', '--merged', '--no-merged', '--points-at');
  const verify = has(g.p, '-v', '--verify');
  if (verify) return { gitDir: 'read', risks: ['sign'], hooks: [] };
  if (list || g.p.operands.length === 0) return READ;
  return { gitDir: 'write', risks: ['editor', 'sign'], hooks: REF_AND_INDEX_HOOKS };
}

/** remote ACTION: reading actions (`-v`, show, get-url) vs ones that change remotes or fetch. */
export function remote(g: GitCall, action: string): Plan {
  if (action === '' || action === 'show' || action === 'get-url')
    return { gitDir: 'read', risks: action === 'show' ? ['network'] : [], hooks: [] };
  if (['add', 'remove', 'rm', 'rename', 'set-url', 'set-head', 'set-branches'].includes(action))
    return {
      gitDir: 'config',
      risks: has(g.p, '-f', '--fetch') ? ['network'] : [],
      hooks: REF_AND_INDEX_HOOKS,
    };
  if (action === 'prune' || action === 'update')
    return { gitDir: 'write', risks: ['network'], hooks: HOOKS.fetch! };
  g.uncertain(`unknown remote action ${action}`);
  return WRITE;
}

/** Keys whose value is a secret more often than not (a token in an extra header, a password, a cookie file). */
const SECRET_KEY = /extraheader|pass(?:word|wd)?$|token|secret|cookiefile|sslkey/i;

/**
 * `git config KEY` / `--get KEY` / `--get-all KEY`: one named key's value, from the files git reads for every
 * command anyway (the user's and the system's config are the program's own, as for `git log`). Not a
 * listing (`--list`, `--get-regexp`), not a key whose value is likely a secret, not an unknown key.
 */
function ownKey(g: GitCall, ops: readonly Field[]): boolean {
  if (
    has(g.p, '-l', '--list', '--get-regexp', '--get-urlmatch', '--show-origin', '--show-scope', '--includes')
  )
    return false;
  const key = ops[0];
  return (
    ops.length === 1 &&
    key !== undefined &&
    key.uncertain === undefined &&
    /^[A-Za-z][\w-]*(?:\.[^\s=]+)?\.[A-Za-z][\w-]*$/.test(key.value) &&
    !SECRET_KEY.test(key.value)
  );
}

/** config: reads or writes one config file; setting a key whose value git runs is code. */
export function config(g: GitCall): Plan {
  if (has(g.p, '-e', '--edit')) g.uncertain('--edit opens an editor');
  const read = has(
    g.p,
    '--get',
    '--get-all',
    '--get-regexp',
    '--get-urlmatch',
    '--get-color',
    '--get-colorbool',
    '-l',
    '--list',
  );
  const ops = g.p.operands;
  const writes =
    !read && (ops.length >= 2 || has(g.p, '--unset', '--unset-all', '--rename-section', '--remove-section'));
  if (writes && ops[0] !== undefined) {
    const key = ops[0].value;
    if (ops[0].uncertain !== undefined || riskOf(key) !== undefined || /^alias\./i.test(key))
      g.uncertain(`setting ${ops[0].raw} configures a program git will run`);
  }
  const op = writes ? 'write' : 'read';
  const file = values(g.p, '-f', '--file')[0];
  if (file) g.path(file, op);
  else if (has(g.p, '--global'))
    g.path({ value: '~/.gitconfig', raw: '~/.gitconfig', glob: -1, tilde: true }, op);
  else if (has(g.p, '--system')) g.path(literal('/etc/gitconfig'), op);
  else if (!writes && !has(g.p, '--local', '--worktree', '--blob') && !ownKey(g, ops)) {
    // Reading without a scope merges the system, global and repository files: a listing or a pattern prints
    // what they hold.
    g.path(literal('/etc/gitconfig'), 'read');
    g.path({ value: '~/.gitconfig', raw: '~/.gitconfig', glob: -1, tilde: true }, 'read');
  }
  return {
    gitDir: writes && !file && !has(g.p, '--global', '--system') ? 'config' : 'read',
    risks: [],
    hooks: [],
  };
}

/** fetch/push/ls-remote: the network (ssh, credential helpers); `--upload-pack`/`--receive-pack` run programs. */
export function network(g: GitCall): Plan {
  if (values(g.p, '--upload-pack', '--receive-pack', '--exec').length > 0)
    g.uncertain('--upload-pack/--receive-pack/--exec runs a program');
  if (g.sub === 'ls-remote') return { gitDir: 'read', risks: ['network'], hooks: [] };
  return {
    gitDir: has(g.p, '-u', '--set-upstream') ? 'tracking' : 'write',
    risks: ['network', ...(g.sub === 'push' ? (['sign'] as const) : [])],
    hooks: HOOKS[g.sub] ?? REF_AND_INDEX_HOOKS,
  };
}

/** Housekeeping that rewrites the object store and refs (gc, prune, repack, maintenance, pack-refs). */
export function housekeeping(): Plan {
  return { gitDir: 'write', risks: [], hooks: HOOKS.gc! };
}

/** reflog: `show`/`list`/`exists` read; `expire`/`delete` write. */
export function reflog(_g: GitCall, action: string): Plan {
  return action === 'expire' || action === 'delete' ? WRITE : READ;
}

/** notes: reading actions, or writing ones (which may open an editor, or read `-F` files). */
export function notes(g: GitCall, action: string): Plan {
  for (const f of values(g.p, '-F', '--file')) if (f.value !== '-') g.path(f, 'read');
  if (action === '' || action === 'list' || action === 'show' || action === 'get-ref') return READ;
  return { gitDir: 'write', risks: ['editor'], hooks: REF_AND_INDEX_HOOKS };
}
