import { type CreateAccessOptions, createAccess } from './createAccess.js';
import type { NetworkAccess } from './network/types.js';
import type { ResolveOptions } from './resolvePath.js';
import { resolvePath } from './resolvePath.js';
import type {
  Access,
  CallContext,
  Finding,
  MatchedRule,
  Op,
  PromptFinding,
  ResolvedPath,
  ToolCall,
} from './types.js';

/**
 * What a plugin sees of one call in progress. It lives for one call only: resolutions are memoised here
 * and nowhere else, because a symlink can change between two calls.
 */
export interface CallState {
  readonly id: string;
  readonly call: ToolCall;
  readonly ctx: CallContext;
  /** Accesses collected so far (final once `beforeToolCall` runs). */
  readonly accesses: readonly Access[];
  /**
   * Network reach collected so far (final once `beforeToolCall` runs): hosts the call connects to, from
   * extractors (`shell:curl`, `args.url`). Policies with a `network` section judge them.
   */
  readonly network: readonly NetworkAccess[];
  /** Record that the call reaches a host (extractors, on `collectAccesses`). */
  reach(access: NetworkAccess): void;
  /** Prompt findings recorded so far. */
  readonly prompts: readonly PromptFinding[];
  readonly matched: readonly MatchedRule[];
  /** Per-session storage, invisible to every other session. Namespace keys by plugin name. */
  readonly session: Map<string, unknown>;
  /**
   * Mark that this call was analysed for `tag` (e.g. the shell plugin claims `shell` for a command it parsed),
   * so a policy can fail closed when nobody analysed a call it cannot read itself.
   */
  claim(tag: string): void;
  claimed(tag: string): boolean;
  /** Record a prompt finding: the call goes to a human unless something denies it. */
  prompt(finding: Omit<Finding, 'action'> & { action?: Finding['action'] }): void;
  /** Record a rule that matched, for explain and audit. */
  match(rule: MatchedRule): void;
  /**
   * Ask the host to run the tool with argument `name` set to `value` (a path normalised to what was checked,
   * Folder Guard's `args[paramName] = normalizedPath`). Only an allowed call carries it, as `decision.args`.
   */
  rewriteArg(name: string, value: unknown): void;
  /** The rewrites recorded so far (empty when none). */
  readonly rewrites: ReadonlyMap<string, unknown>;
  /** `resolvePath` against this call's context, memoised for the duration of the call. */
  resolve(raw: string, options?: ResolveOptions): ResolvedPath;
  /** Builds an `Access` for `raw` (resolved against this call's context). */
  access(raw: string, op: Op, options: CreateAccessOptions): Access;
}

const NONE: readonly never[] = Object.freeze([]);

export class CallStateImpl implements CallState {
  readonly id: string;
  readonly call: ToolCall;
  readonly ctx: CallContext;
  readonly session: Map<string, unknown>;
  accesses: readonly Access[] = NONE;
  /** The plugin whose tap is running (series hooks run one tap at a time). */
  activePlugin = 'core';
  // Allocated on first use: most calls record no prompt, no match and resolve nothing twice.
  private promptList: PromptFinding[] | undefined = undefined;
  private matchList: MatchedRule[] | undefined = undefined;
  /** Resolutions with the default options, by raw text. */
  private cache: Map<string, ResolvedPath> | undefined = undefined;
  /** Resolutions with other options (`followFinal: false`, no tilde or variables), by flags and raw text. */
  private flagged: Map<string, ResolvedPath> | undefined = undefined;
  private plainOptions: ResolveOptions | undefined = undefined;
  private readOptions: ResolveOptions | undefined = undefined;
  private claims: Set<string> | undefined = undefined;
  private rewriteMap: Map<string, unknown> | undefined = undefined;
  private realDirs: Set<string> | undefined = undefined;
  private netList: NetworkAccess[] | undefined = undefined;

  constructor(id: string, call: ToolCall, ctx: CallContext, session: Map<string, unknown>) {
    this.id = id;
    this.call = call;
    this.ctx = ctx;
    this.session = session;
  }

  get prompts(): readonly PromptFinding[] {
    return this.promptList ?? NONE;
  }

  get network(): readonly NetworkAccess[] {
    return this.netList ?? NONE;
  }

  reach(access: NetworkAccess): void {
    if (access === null || typeof access !== 'object') return;
    this.netList ??= [];
    this.netList.push(
      Object.freeze({
        ...access,
        origin: typeof access.origin === 'string' ? access.origin : this.activePlugin,
        // A reach without a host is never certain, whatever the extractor said.
        certain: access.certain === true && typeof access.host === 'string' && access.host !== '',
      }),
    );
  }

  get matched(): readonly MatchedRule[] {
    return this.matchList ?? NONE;
  }

  prompt(finding: Omit<Finding, 'action'> & { action?: Finding['action'] }): void {
    this.promptList ??= [];
    this.promptList.push({ ...finding, action: 'prompt', plugin: finding.plugin ?? this.activePlugin });
  }

  get rewrites(): ReadonlyMap<string, unknown> {
    return this.rewriteMap ?? new Map();
  }

  /** Whether any rewrite was recorded (without allocating an empty map). */
  get hasRewrites(): boolean {
    return this.rewriteMap !== undefined && this.rewriteMap.size > 0;
  }

  rewriteArg(name: string, value: unknown): void {
    if (typeof name !== 'string' || name === '') return;
    if (!this.rewriteMap) this.rewriteMap = new Map();
    this.rewriteMap.set(name, value);
  }

  claim(tag: string): void {
    this.claims ??= new Set();
    this.claims.add(tag);
  }

  claimed(tag: string): boolean {
    return this.claims?.has(tag) ?? false;
  }

  match(rule: MatchedRule): void {
    this.matchList ??= [];
    this.matchList.push(rule);
  }

  resolve(raw: string, options?: ResolveOptions): ResolvedPath {
    return this.resolveAs(raw, options, false);
  }

  /** `resolve`, hinting that the path most likely exists (a read): the hint never changes the answer. */
  private resolveAs(raw: string, options: ResolveOptions | undefined, existing: boolean): ResolvedPath {
    this.realDirs ??= new Set();
    // The usual resolution (follow the last link, expand `~` and variables) is keyed by the raw text alone;
    // the others by their flags too. Only the flags and this call's real directories reach `resolvePath`.
    if (
      options === undefined ||
      (options.followFinal !== false && options.tilde !== false && options.vars !== false)
    ) {
      this.cache ??= new Map();
      let hit = this.cache.get(raw);
      if (hit === undefined) {
        this.plainOptions ??= { realDirs: this.realDirs };
        this.readOptions ??= { realDirs: this.realDirs, expectExisting: true };
        hit = resolvePath(raw, this.ctx, existing ? this.readOptions : this.plainOptions);
        this.cache.set(raw, hit);
      }
      return hit;
    }
    const key = `${options.followFinal === false ? 'L' : 'F'}${options.tilde === false ? 't' : 'T'}${options.vars === false ? 'v' : 'V'}\0${raw}`;
    this.flagged ??= new Map();
    let hit = this.flagged.get(key);
    if (hit === undefined) {
      hit = resolvePath(raw, this.ctx, {
        followFinal: options.followFinal !== false,
        tilde: options.tilde !== false,
        vars: options.vars !== false,
        realDirs: this.realDirs,
        expectExisting: existing,
      });
      this.flagged.set(key, hit);
    }
    return hit;
  }

  access(raw: string, op: Op, options: CreateAccessOptions): Access {
    return createAccess(
      raw,
      op,
      this.ctx,
      options,
      this.resolveAs(raw, options, op === 'read' || op === 'list'),
    );
  }

  /** Findings the OS sandbox stands in for (what analysis could not prove), when the policy sandboxes. */
  deferred: Finding[] = [];

  /** How many prompts and matches are recorded, so a tap run again (see `judgeForSandbox`) does not repeat them. */
  mark(): [number, number] {
    return [this.promptList?.length ?? 0, this.matchList?.length ?? 0];
  }

  rollback([prompts, matches]: [number, number]): void {
    this.promptList?.splice(prompts);
    this.matchList?.splice(matches);
  }
}
