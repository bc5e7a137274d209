import { type CallContext, expandPath, resolvePath, ToolgateError } from '@toolgate/core';
import { Minimatch, type MinimatchOptions } from 'minimatch';
import type { PolicyRule } from './types.js';

const MAGIC = /[*?[\]{}()!+@]/;

/** Context a policy's patterns are expanded in (`~`, `<workspace>`, `${VAR}`). */
export type PatternContext = Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'>;

/** Collapses `//`, `/./` and a trailing `/` so patterns and paths meet in one spelling. */
export function normalisePattern(pattern: string): string {
  let p = pattern.replace(/\/{2,}/g, '/').replace(/\/\.(?=\/|$)/g, '');
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p === '' ? '/' : p;
}

/** The literal directory a pattern starts with: `/home/u/**` → `/home/u`; `/**\/.ssh` → `/`. */
export function staticPrefix(pattern: string): string {
  const parts = pattern.split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (MAGIC.test(part)) break;
    out.push(part);
  }
  // A pattern without magic names one path: its prefix is its parent (the index is by directory).
  if (out.length === parts.length) out.pop();
  const prefix = out.join('/');
  return prefix === '' ? '/' : prefix;
}

export function hasMagic(pattern: string): boolean {
  return MAGIC.test(pattern);
}

/**
 * Expands a rule's pattern for one context. Relative patterns are anchored at the workspace; a pattern
 * starting with `**` matches anywhere. Unresolvable variables make the policy unusable for this context:
 * that throws (the call then fails closed with PLUGIN_ERROR), never silently drops a rule.
 */
export function expandPattern(rule: PolicyRule, ctx: PatternContext): string {
  let p = rule.pattern;
  if (p.startsWith('**')) p = `/${p}`;
  const expanded = expandPath(p, ctx);
  if (!expanded.certain) {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_CONFIG',
      `${rule.source}: pattern ${JSON.stringify(rule.pattern)} cannot be expanded: ${expanded.reason ?? 'unknown'}`,
    );
  }
  p = expanded.value;
  if (!p.startsWith('/')) p = `${ctx.workspace}/${p}`;
  p = normalisePattern(p);
  // Wunderland: "`!/sensitive/*` blocks all files under /sensitive" — a block covers the whole subtree.
  if (rule.block && p.endsWith('/*')) p = `${p}*`;
  return p;
}

export interface CompiledPattern {
  /** Expanded patterns (the literal one and, when its root is reached through a symlink, the real one). */
  patterns: string[];
  /** Compiled on first read (a failure to compile throws there). */
  readonly matchers: Minimatch[];
  /** For `X/**`: matchers of `X`, so the rule covers `X` itself and a subtree access at or under `X`. */
  readonly bases: Minimatch[];
  prefixes: string[];
  nocase: boolean;
}

/** Resolves the static root of a pattern through symlinks, so `<workspace>/**` still matches when the workspace is reached through a link. */
function realRoot(pattern: string, ctx: PatternContext, realDirs?: Set<string>): string | undefined {
  const prefix = staticPrefix(pattern);
  if (prefix === '/') return undefined;
  const resolved = resolvePath(prefix, ctx, realDirs ? { realDirs } : {});
  if (!resolved.certain || resolved.real === null || resolved.real === prefix) return undefined;
  return resolved.real + pattern.slice(prefix.length);
}

/**
 * `realDirs`: directories found real while binding this policy (shared by its rules, never kept past that):
 * rules rooted in one directory (`~/.ssh`, `~/.aws`, … under a link-free home) cost one lstat each.
 */
// Compiled globs by pattern and case mode. A Minimatch is a pure function of its pattern and options and is
// never changed by matching, so evaluators of many workspaces (a gateway's LRU) and the successive calls of a
// hook server share one; bounded, emptied whole when full.
const compiledGlobs = new Map<string, Minimatch>();
const MAX_COMPILED_GLOBS = 8192;

function minimatchFor(pattern: string, options: MinimatchOptions): Minimatch {
  const key = `${options.nocase ? 'i' : 's'}${pattern}`;
  let mm = compiledGlobs.get(key);
  if (mm === undefined) {
    mm = new Minimatch(pattern, options);
    if (compiledGlobs.size >= MAX_COMPILED_GLOBS) compiledGlobs.clear();
    compiledGlobs.set(key, mm);
  }
  return mm;
}

export function compilePattern(
  rule: PolicyRule,
  ctx: PatternContext,
  realDirs?: Set<string>,
): CompiledPattern {
  const expanded = expandPattern(rule, ctx);
  const patterns = [expanded];
  const real = realRoot(expanded, ctx, realDirs);
  if (real !== undefined) patterns.push(real);
  // Deny and block patterns match case-insensitively (on macOS and Windows /ETC/passwd is /etc/passwd);
  // allow patterns case-sensitively, so a case trick never widens access.
  const nocase = rule.access === 'deny' || rule.access === 'prompt' || rule.block === true;
  const options: MinimatchOptions = {
    dot: true,
    nocase,
    nocomment: true,
    nonegate: true,
    optimizationLevel: 2,
  };
  // Compiled on first use: the prefix index asks only the rules rooted on a path's ancestors, and a hook
  // process (one call, then exit) that built all ~40 matchers of a starter policy spent ~4 ms of its ~20 ms
  // there. minimatch reads every non-empty pattern as a glob (an unclosed `[` is literal), so deferring the
  // check below moves no error out of reach: a rule that cannot compile fails the call that consults it.
  let compiled: { matchers: Minimatch[]; bases: Minimatch[] } | undefined;
  const compile = () => {
    const matchers: Minimatch[] = [];
    const bases: Minimatch[] = [];
    for (const p of patterns) {
      const mm = minimatchFor(p, options);
      if (mm.set.length === 0 || (mm as unknown as { empty?: boolean }).empty === true) {
        throw new ToolgateError(
          'TOOLGATE_ERR_INVALID_CONFIG',
          `${rule.source}: invalid glob ${JSON.stringify(rule.pattern)}`,
        );
      }
      matchers.push(mm);
      if (p.endsWith('/**')) bases.push(minimatchFor(p.slice(0, -3) || '/', options));
    }
    compiled = { matchers, bases };
    return compiled;
  };
  const prefixes = patterns.map((p) => {
    const s = staticPrefix(p);
    return nocase ? s.toLowerCase() : s;
  });
  return {
    patterns,
    get matchers() {
      return (compiled ?? compile()).matchers;
    },
    get bases() {
      return (compiled ?? compile()).bases;
    },
    prefixes,
    nocase,
  };
}
