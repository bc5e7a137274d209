import { lstatSync } from 'node:fs';
import { type Access, LruMap, type Op } from '@toolgate/core';
import type { Minimatch } from 'minimatch';
import { LEVEL, outcomeOf, tighter } from './levels.js';
import { type CompiledPattern, compilePattern, type PatternContext } from './patterns.js';
import { probeOf } from './probes.js';
import {
  DEFAULT_WALK,
  type SubtreeWalkOptions,
  type WalkPolicy,
  type WalkProbe,
  walkSubtree,
} from './subtreeWalk.js';
import type {
  CompiledPolicy,
  DefaultSpec,
  Evaluation,
  Outcome,
  PolicyRule,
  TraceEntry,
  Vector,
} from './types.js';

export interface BoundRule {
  index: number;
  rule: PolicyRule;
  level: number;
  compiled: CompiledPattern;
}

export interface EvaluateOptions {
  /** Record every rule considered (explain); off on the decision path. */
  trace?: boolean;
  /**
   * How subtree accesses are judged: walk what exists beneath them within these bounds (the default), or
   * `false` for the worst case of every rule that could match beneath (no I/O).
   */
  walk?: SubtreeWalkOptions | false;
}

/** A policy bound to one context: patterns expanded, globs compiled and indexed by static prefix. */
export interface Evaluator {
  readonly policy: CompiledPolicy;
  /** Expanded patterns per rule index (explain, describeTools). */
  readonly expanded: readonly (readonly string[])[];
  /**
   * The compiled globs of rule `index`, one per pattern of `expanded[index]` (compiled on first use, shared with
   * evaluate: the sandbox's glob walk matches exactly as the static check does). Throws on an invalid glob.
   */
  matchers(index: number): readonly Minimatch[];
  evaluate(access: Access, options?: EvaluateOptions): Evaluation;
  /** Roots whose rules would allow `op` for accesses of `vector` (computed once per operation and vector). */
  allowedRoots(op: Op, vector: Vector): readonly string[];
  /**
   * The envelope's `allowed_paths`: the first `MAX_ENVELOPE_PATHS` allowed roots and how many more there are.
   * Computed once per evaluator, operation and vector, so a deny costs the same at 10 rules and at 10,000.
   */
  envelopeRoots(op: Op, vector: Vector): EnvelopeRoots;
  /** Whether `op` is allowed on every path for accesses of `vector`: no rule refuses it and the default allows. */
  allowsEverywhere(op: Op, vector: Vector): boolean;
}

/** How many allowed roots a rejection envelope lists; the rest are counted (`allowed_paths_omitted`). */
export const MAX_ENVELOPE_PATHS = 20;

export interface EnvelopeRoots {
  readonly paths: readonly string[];
  /** Allowed roots not listed. */
  readonly omitted: number;
}

export function vectorOf(access: Access): Vector {
  return access.origin.startsWith('shell:') ? 'shell' : 'file';
}

function anyMatch(matchers: readonly Minimatch[], path: string, partial = false): boolean {
  for (const m of matchers) if (m.match(path, partial)) return true;
  return false;
}

/** `path` and each of its ancestors, deepest first, ending with `/`. */
function ancestors(path: string): string[] {
  const out: string[] = [path];
  let i = path.lastIndexOf('/');
  while (i > 0) {
    out.push(path.slice(0, i));
    i = path.lastIndexOf('/', i - 1);
  }
  if (path !== '/') out.push('/');
  return out;
}

const byIndex = (a: BoundRule, b: BoundRule) => a.index - b.index;

/** Rules in policy order: an insertion sort for the few candidates of a path (the usual 2–5), else `sort`. */
function sortByIndex(rules: BoundRule[]): void {
  if (rules.length > 16) {
    rules.sort(byIndex);
    return;
  }
  for (let i = 1; i < rules.length; i++) {
    const r = rules[i] as BoundRule;
    let j = i - 1;
    while (j >= 0 && (rules[j] as BoundRule).index > r.index) {
      rules[j + 1] = rules[j] as BoundRule;
      j--;
    }
    rules[j + 1] = r;
  }
}

/**
 * Rules by the static prefix of their pattern, lower-cased (a case-insensitive superset: the matchers
 * decide), so a path only meets the rules whose prefix is one of its ancestors.
 */
class PrefixIndex {
  private readonly byPrefix = new Map<string, BoundRule[]>();
  /** `hasLength[n]`: some prefix is n characters long. Skips slicing and hashing most ancestors. */
  private readonly hasLength: Uint8Array;
  private readonly stamp: Uint32Array;
  private generation = 0;

  constructor(rules: readonly BoundRule[]) {
    this.stamp = new Uint32Array(rules.length);
    let longest = 1;
    for (const r of rules) {
      for (const prefix of new Set(r.compiled.prefixes.map((p) => p.toLowerCase()))) {
        let list = this.byPrefix.get(prefix);
        if (!list) {
          list = [];
          this.byPrefix.set(prefix, list);
        }
        list.push(r);
        longest = Math.max(longest, prefix.length);
      }
    }
    this.hasLength = new Uint8Array(longest + 1);
    for (const key of this.byPrefix.keys()) this.hasLength[key.length] = 1;
    this.sorted = [...this.byPrefix.keys()].sort();
  }

  private readonly sorted: string[];

  /**
   * Rules whose static prefix lies strictly beneath `root`: they match something under a subtree access
   * rooted there. A range of the sorted prefixes (`root/` up to `root0`, '0' following '/'), not a scan.
   */
  beneath(root: string): BoundRule[] {
    const lower = root.toLowerCase();
    const from = lower === '/' ? '/' : `${lower}/`;
    const keys = this.sorted;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as string) < from) lo = mid + 1;
      else hi = mid;
    }
    const out: BoundRule[] = [];
    for (let i = lo; i < keys.length; i++) {
      const key = keys[i] as string;
      if (!key.startsWith(from) || key === lower) {
        if (key === lower) continue;
        break;
      }
      for (const r of this.byPrefix.get(key) ?? []) out.push(r);
    }
    return out;
  }

  /** Rules whose static prefix is the path or one of its ancestors: the only ones that can match it. */
  candidates(path: string): BoundRule[] {
    this.generation = (this.generation + 1) >>> 0 || 1;
    const out: BoundRule[] = [];
    const lower = path.toLowerCase();
    const has = this.hasLength;
    // Walks the ancestors in place, deepest first, ending with `/`; this loop is the decision path.
    let end = lower.length;
    for (;;) {
      const len = end === 0 ? 1 : end;
      if (len < has.length && has[len] === 1) {
        const list = this.byPrefix.get(end === 0 ? '/' : end === lower.length ? lower : lower.slice(0, end));
        if (list) {
          for (const r of list) {
            if (this.stamp[r.index] === this.generation) continue;
            this.stamp[r.index] = this.generation;
            out.push(r);
          }
        }
      }
      if (end === 0) break;
      end = lower.lastIndexOf('/', end - 1);
      if (end < 0) break;
    }
    if (out.length > 1) sortByIndex(out);
    return out;
  }
}

function specificity(r: BoundRule): number {
  return (r.compiled.prefixes[0]?.length ?? 0) * 1000 + r.rule.pattern.length;
}

/** Tiered: whether `r` beats `best` (a stricter tier, or the same tier and more specific). */
function outranks(r: BoundRule, best: BoundRule): boolean {
  return r.level < best.level || (r.level === best.level && specificity(r) > specificity(best));
}

/** Binds a policy to a context: expands and compiles every pattern once. */
export function createEvaluator(policy: CompiledPolicy, ctx: PatternContext): Evaluator {
  const realDirs = new Set<string>();
  const bound: BoundRule[] = policy.rules.map((rule, index) => ({
    index,
    rule,
    level: rule.block ? 0 : LEVEL[rule.access],
    compiled: compilePattern(rule, ctx, realDirs),
  }));
  const index = new PrefixIndex(bound);
  const tiered = policy.mode === 'tiered';
  const defaultFor = (vector: Vector): DefaultSpec => policy.defaults?.[vector] ?? policy.default;
  const applies = (r: BoundRule, vector: Vector, op?: Op) =>
    (r.rule.vector === undefined || r.rule.vector === vector) &&
    (op === undefined || r.rule.ops === undefined || r.rule.ops.includes(op));

  const pathEval = (
    access: Access,
    real: string,
    vector: Vector,
    trace: TraceEntry[] | undefined,
  ): Evaluation => {
    const op = access.op === 'list' ? 'read' : access.op;
    const matched: PolicyRule[] = [];
    let best: BoundRule | undefined;
    let restrictive: BoundRule | undefined;
    // (No closure per call: each match is considered in line.) Blocks, and deny/prompt rules matched only by
    // the path as written, apply wherever they stand; the others compete for `best`.
    for (const r of index.candidates(real)) {
      if (!applies(r, vector, op)) continue;
      if (!anyMatch(r.compiled.matchers, real) && !anyMatch(r.compiled.bases, real)) {
        trace?.push({ rule: r.rule, matched: false });
        continue;
      }
      matched.push(r.rule);
      trace?.push({ rule: r.rule, matched: true, how: 'path' });
      if (r.rule.block) {
        if (!restrictive || r.level < restrictive.level) restrictive = r;
      } else if (!best || (tiered && outranks(r, best))) best = r;
    }
    // A path written through a link into a denied name (`notes -> ~/.ssh`) is judged by its real target,
    // but a deny rule that matches the path as written also applies: fail closed on both spellings.
    if (access.path !== real) {
      for (const r of index.candidates(access.path)) {
        if (!applies(r, vector, op) || r.level > 1 || matched.includes(r.rule)) continue;
        if (anyMatch(r.compiled.matchers, access.path) || anyMatch(r.compiled.bases, access.path)) {
          matched.push(r.rule);
          trace?.push({ rule: r.rule, matched: true, how: 'lexical' });
          if (!restrictive || r.level < restrictive.level) restrictive = r;
        }
      }
    }
    let decider = best;
    // In first-match a block (or a deny matched by the path as written) beats any ordinary rule wherever it
    // stands; in tiered the most restrictive tier wins.
    if (restrictive && (!tiered || !decider || restrictive.level <= decider.level)) decider = restrictive;
    if (!decider) {
      const decision = defaultFor(vector)[op];
      return {
        decision,
        matched,
        trace: trace ?? [],
        why: trace ? `no rule matches; the default for ${op} is ${decision}` : '',
      };
    }
    const decision = outcomeOf(decider.rule.block ? 'deny' : decider.rule.access, op);
    return {
      decision,
      rule: decider.rule,
      matched,
      trace: trace ?? [],
      why: !trace
        ? ''
        : `${decider.rule.block ? 'block' : decider.rule.access} rule ${decider.rule.pattern} ${tiered ? 'is the most restrictive match' : 'is the first match'}: ${op} ${decision === 'allow' ? 'allowed' : decision === 'deny' ? 'denied' : 'needs approval'}`,
    };
  };

  const worstCase = (
    access: Access,
    real: string,
    vector: Vector,
    trace: TraceEntry[] | undefined,
  ): Evaluation => {
    // The root itself first, then every rule that could match something beneath it.
    const own = pathEval(access, real, vector, trace);
    let decision = own.decision;
    let rule = own.rule;
    const matched = [...own.matched];
    const op = access.op === 'list' ? 'read' : access.op;
    let covered = false;
    const rootAncestors = ancestors(real);
    const inside = `${real === '/' ? '' : real}/`;
    const consider = (r: BoundRule, beneath: boolean) => {
      if (!beneath) return;
      trace?.push({ rule: r.rule, matched: true, how: 'beneath' });
      matched.push(r.rule);
      const o = outcomeOf(r.rule.block ? 'deny' : r.rule.access, op);
      if (tighter(o, decision) !== decision) {
        decision = o;
        rule = r.rule;
      }
    };
    // Rules rooted at or above the subtree: minimatch's partial match says whether `real` could be a
    // prefix of something they match. Rules rooted inside it match something beneath by construction
    // (case-sensitive ones only if their root really is inside, in its own case).
    for (const r of index.candidates(real)) {
      if (!applies(r, vector, op) || matched.includes(r.rule)) continue;
      consider(r, anyMatch(r.compiled.matchers, real, true));
    }
    for (const r of index.beneath(real)) {
      if (!applies(r, vector, op) || matched.includes(r.rule)) continue;
      consider(r, r.compiled.nocase || r.compiled.patterns.some((p) => p.startsWith(inside)));
    }
    // Anything beneath the root no rule matches gets the default, unless an allow rule covers it all.
    if (own.rule && !own.rule.block) {
      const r = bound[policy.rules.indexOf(own.rule)];
      if (r && rootAncestors.some((a) => anyMatch(r.compiled.bases, a))) covered = true;
    }
    if (!covered) {
      const d = defaultFor(vector)[op];
      if (tighter(d, decision) !== decision) {
        decision = d;
        rule = undefined;
      }
    }
    return {
      decision,
      ...(rule ? { rule } : {}),
      matched,
      trace: trace ?? [],
      why: !trace
        ? ''
        : `subtree access: the most restrictive of every rule that could match beneath ${real}${covered ? '' : ' and the default'} is ${decision}`,
    };
  };

  /** Whether an allow rule that decides `real` covers everything beneath it (no default applies there). */
  const covers = (rule: PolicyRule | undefined, real: string): boolean => {
    if (!rule || rule.block) return false;
    const r = bound[policy.rules.indexOf(rule)];
    return r !== undefined && ancestors(real).some((a) => anyMatch(r.compiled.bases, a));
  };

  /**
   * The rules a walk must ask beneath `real`: those that apply, could match something there, and are
   * stricter than `than`. Found through the prefix index (rules rooted above or inside `real`), never a scan.
   */
  const scopeFor = (real: string, lexical: string, given: Op, than: Outcome, vector: Vector) => {
    const op: Op = given === 'list' ? 'read' : given;
    const probes: WalkProbe[] = [];
    const stricter = (r: BoundRule) =>
      applies(r, vector, op) && tighter(outcomeOf(r.rule.block ? 'deny' : r.rule.access, op), than) !== than;
    const collect = (root: string, spelledAs: boolean) => {
      const inside = `${root === '/' ? '' : root}/`;
      for (const r of index.candidates(root)) {
        if (spelledAs && r.level > 1) continue;
        if (stricter(r) && anyMatch(r.compiled.matchers, root, true))
          probes.push(probeOf(r.compiled, spelledAs));
      }
      for (const r of index.beneath(root)) {
        if (spelledAs && r.level > 1) continue;
        if (stricter(r) && (r.compiled.nocase || r.compiled.patterns.some((p) => p.startsWith(inside))))
          probes.push(probeOf(r.compiled, spelledAs));
      }
    };
    collect(real, false);
    if (lexical !== real) collect(lexical, true);
    const rootEval = pathEval(
      { op, scope: 'path', raw: real, path: lexical, realPath: real, origin: '', certain: true },
      real,
      vector,
      undefined,
    );
    const needAll = !covers(rootEval.rule, real) && tighter(defaultFor(vector)[op], than) !== than;
    return { probes, needAll };
  };

  const walkPolicy = (vector: Vector): WalkPolicy => ({
    judge: (entry) => {
      const mapped: Access = entry.op === 'list' ? { ...entry, op: 'read' } : entry;
      return pathEval(mapped, mapped.realPath as string, vector, undefined);
    },
    scope: (real, lexical, op, than) => scopeFor(real, lexical, op, than, vector),
  });

  const subtreeEval = (
    given: Access,
    access: Access,
    real: string,
    vector: Vector,
    trace: TraceEntry[] | undefined,
    walk: SubtreeWalkOptions | false | undefined,
  ): Evaluation => {
    if (walk === false) return worstCase(access, real, vector, trace);
    const own = pathEval(access, real, vector, trace);
    if (own.decision === 'deny') return own;
    const unbounded = (reason: string): Evaluation => {
      const wc = worstCase(access, real, vector, trace);
      if (wc.decision === 'allow') return wc;
      return {
        ...wc,
        unbounded: reason,
        why: trace ? `${reason}: ${wc.why}` : '',
      };
    };
    // Nothing beneath could be stricter than the root and no link leads elsewhere: no I/O at all.
    const rootScope = scopeFor(real, access.path, given.op, own.decision, vector);
    if (rootScope.probes.length === 0 && !rootScope.needAll && given.followLinks !== true) return own;
    if (given.unknownContents !== undefined)
      return unbounded(`what lies beneath ${real} is unknown (${given.unknownContents})`);
    let isDir: boolean;
    try {
      // No exception for the common "does not exist" (`rm -rf dist` before a build): it costs microseconds.
      const st = lstatSync(real, { throwIfNoEntry: false });
      // Nothing exists beneath a path that does not exist; anything the same command line creates there
      // first is the extractor's to report (`unknownContents`), so only the root's own verdict applies.
      if (st === undefined) return own;
      isDir = st.isDirectory();
    } catch (e) {
      return unbounded(`cannot inspect ${real} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    // A file (or a link the access does not follow) is the whole subtree: its own verdict decides.
    if (!isDir) return own;
    const result = walkSubtree(given, real, own.decision, rootScope, walkPolicy(vector), {
      maxEntries: walk?.maxEntries ?? DEFAULT_WALK.maxEntries,
      maxMs: walk?.maxMs ?? DEFAULT_WALK.maxMs,
    });
    if (result.kind === 'unbounded') return unbounded(result.reason);
    const cause = result.cause;
    if (!cause) {
      return {
        ...own,
        walked: result.walked,
        why: trace
          ? `subtree access: ${result.walked} entries beneath ${real} walked, none stricter than the root: ${own.why}`
          : '',
      };
    }
    trace?.push(...cause.eval.trace);
    return {
      decision: result.decision,
      ...(cause.eval.rule ? { rule: cause.eval.rule } : {}),
      matched: [...own.matched, ...cause.eval.matched],
      trace: trace ?? [],
      cause:
        cause.lexical !== cause.path ? { path: cause.path, lexical: cause.lexical } : { path: cause.path },
      walked: result.walked,
      why: trace
        ? `subtree access: ${cause.path} exists beneath ${real} and is ${result.decision === 'deny' ? 'denied' : 'prompted'} (${cause.eval.rule ? `rule ${cause.eval.rule.pattern}` : 'the default'})`
        : '',
    };
  };

  // Listing the allowed roots walks every rule: done once per operation and vector, never per deny.
  const rootLists = new Map<string, readonly string[]>();
  const envelopes = new Map<string, EnvelopeRoots>();
  const allowedRoots = (op: Op, vector: Vector): readonly string[] => {
    // A listing is judged as a read of the directory (see `evaluate`), so its roots are the read roots: Folder
    // Guard's "Read tool: readPaths + writePaths" (`list_workspace_files` is a read tool, seed 000).
    if (op === 'list') return allowedRoots('read', vector);
    const key = `${op}\0${vector}`;
    let hit = rootLists.get(key);
    if (!hit) {
      const roots = new Set<string>();
      for (const r of bound) {
        if (r.rule.block || !applies(r, vector, op) || outcomeOf(r.rule.access, op) !== 'allow') continue;
        const p = r.compiled.patterns[0];
        if (p === undefined) continue;
        const root = p.endsWith('/**') ? p.slice(0, -3) || '/' : p;
        // Only roots where the operation can succeed: a write rule under a broader read tier (tiered) or
        // after a deny that matches first (first-match) would point the model at the path just denied.
        const probe = { op, scope: 'path', raw: root, path: root, realPath: root, certain: true } as Access;
        if (pathEval(probe, root, vector, undefined).decision !== 'allow') continue;
        roots.add(root);
      }
      hit = Object.freeze([...roots]);
      rootLists.set(key, hit);
    }
    return hit;
  };

  return {
    policy,
    expanded: bound.map((b) => b.compiled.patterns),
    matchers: (i) => bound[i]?.compiled.matchers ?? [],
    evaluate(given, options) {
      // Listing names is judged as a read of the directory itself (seeds: `list_directory` is a read tool).
      const access: Access = given.op === 'list' ? { ...given, op: 'read' } : given;
      const trace = options?.trace ? [] : undefined;
      const vector = vectorOf(access);
      const real = access.realPath;
      if (real === null || !access.certain) {
        return {
          decision: 'deny',
          matched: [],
          trace: trace ?? [],
          why: 'the path cannot be determined with certainty',
        };
      }
      return access.scope === 'subtree'
        ? subtreeEval(given, access, real, vector, trace, options?.walk)
        : pathEval(access, real, vector, trace);
    },
    allowsEverywhere(given, vector) {
      const op = given === 'list' ? 'read' : given;
      // The default matters unless an allowing rule matches every path (`/**`).
      let everyPath = defaultFor(vector)[op] === 'allow';
      for (const r of bound) {
        if (!applies(r, vector, op)) continue;
        if (r.rule.block || outcomeOf(r.rule.access, op) !== 'allow') return false;
        if (r.compiled.patterns.includes('/**')) everyPath = true;
      }
      return everyPath;
    },
    allowedRoots,
    envelopeRoots(op, vector) {
      const key = `${op}\0${vector}`;
      let hit = envelopes.get(key);
      if (!hit) {
        const all = allowedRoots(op, vector);
        hit = Object.freeze({
          paths: Object.freeze(all.slice(0, MAX_ENVELOPE_PATHS)),
          omitted: Math.max(0, all.length - MAX_ENVELOPE_PATHS),
        });
        envelopes.set(key, hit);
      }
      return hit;
    },
  };
}

/** How many contexts (workspace, home, variables) keep a compiled evaluator per policy, by default. */
export const DEFAULT_MAX_WORKSPACES = 256;

/** A policy's evaluators by context, and the one asked for last (its key's parts, so a repeat builds no key). */
interface ByContext {
  lru: LruMap<string, Evaluator>;
  workspace: string | undefined;
  home: string | undefined;
  /** `ctx.env[v]` of each of the policy's variables, as the key holds them. */
  values: string[];
  last: Evaluator | undefined;
}

const cache = new WeakMap<CompiledPolicy, ByContext>();

/**
 * The evaluator of `policy` for a context, compiled on first use for that (workspace, home, env) and kept in
 * a bounded LRU (`maxWorkspaces` per policy; the largest asked for wins): compile once, never on the decision
 * path again while the context is in use; the least recently used context is the one forgotten. Only pattern
 * roots are resolved here; accesses are resolved per call by core. The same context as the last call's (the
 * usual case: one workspace per session) is compared field by field, without building the LRU's key; it is
 * the LRU's newest entry already, so skipping the LRU's refresh changes no order.
 */
export function evaluatorFor(
  policy: CompiledPolicy,
  ctx: PatternContext,
  maxWorkspaces = DEFAULT_MAX_WORKSPACES,
): Evaluator {
  let byCtx = cache.get(policy);
  if (!byCtx) {
    byCtx = {
      lru: new LruMap(maxWorkspaces),
      workspace: undefined,
      home: undefined,
      values: [],
      last: undefined,
    };
    cache.set(policy, byCtx);
  } else if (maxWorkspaces > byCtx.lru.max) byCtx.lru.resize(maxWorkspaces);
  const vars = (policy.extras.vars as readonly string[] | undefined) ?? [];
  if (byCtx.last !== undefined && ctx.workspace === byCtx.workspace && ctx.home === byCtx.home) {
    let same = true;
    for (let i = 0; i < vars.length; i++)
      if ((ctx.env[vars[i] as string] ?? '\u0001') !== byCtx.values[i]) {
        same = false;
        break;
      }
    if (same) return byCtx.last;
  }
  let key = `${ctx.workspace}\0${ctx.home}`;
  const values: string[] = [];
  for (const v of vars) {
    const value = ctx.env[v] ?? '\u0001';
    values.push(value);
    key += `\0${value}`;
  }
  let ev = byCtx.lru.get(key);
  if (!ev) {
    ev = createEvaluator(policy, ctx);
    byCtx.lru.set(key, ev);
  }
  byCtx.workspace = ctx.workspace;
  byCtx.home = ctx.home;
  byCtx.values = values;
  byCtx.last = ev;
  return ev;
}
