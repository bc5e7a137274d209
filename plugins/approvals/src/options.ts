import { describeValue, type GrantStore } from '@toolgate/core';
import { fileGrantStore } from './fileGrantStore.js';
import type { GrantDefaults } from './grants.js';
import { invalidOption } from './strategies/checkAnswer.js';
import type { ApprovalStrategy } from './types.js';

export interface ApprovalsOptions {
  /** Who is asked: `tty()`, `queue()`, `firstOf([...])`, `autoAllow()`, `autoDeny()` or your own. */
  strategy: ApprovalStrategy;
  /**
   * Milliseconds to wait for an answer before denying with `PROMPT_TIMEOUT` (default 120 000). Keep it below
   * the guard's `timeouts.onPrompt` (default 300 000), which bounds the whole approval step.
   */
  timeoutMs?: number;
  /** Seed 002: at most this many questions per session; later prompts are denied with `PROMPT_LIMIT`. */
  maxConfirmationsPerSession?: number;
  /** Defaults for session grants: lifetime in ms and how many later calls each answers. */
  grants?: GrantDefaults;
  /** Save each session's grants to `<dir>/<sessionId>/grants.json` and load them on resume. */
  dir?: string;
  /**
   * Where sessions' grants live instead of `dir` (a store shared by a fleet: `redisGrantStore()` of
   * `@toolgate/store-redis`). A shared store is re-read before a prompt is answered from grants or asked, so
   * a grant, a use or a cancellation made on another machine counts here; a store that cannot be read means
   * no grant is relied on (the approver is asked), never an allow.
   */
  store?: GrantStore;
  /** Grants answered with `persist: true` are appended here as policy rules for the user to review. */
  overlayFile?: string;
  /** After the same directory is approved this many times in a session, suggest the rule that silences it. */
  suggestAfter?: number;
  /**
   * Seed 002's wild mode: approve every prompt without asking (denies still deny). Default: the
   * `TOOLGATE_WILD_MODE=true` environment variable of the guard's process; an explicit boolean wins.
   */
  wildMode?: boolean;
  /** Environment read for `TOOLGATE_WILD_MODE` (default `process.env`; never the agent's `ctx.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Clock, in epoch milliseconds (default `Date.now`): grant expiry is measured with it. */
  now?: () => number;
}

export interface CompiledOptions {
  strategy: ApprovalStrategy;
  timeoutMs: number;
  maxConfirmations: number | undefined;
  grants: GrantDefaults;
  dir: string | undefined;
  /** `store`, or a file store over `dir`; none: grants live only in memory. */
  store: GrantStore | undefined;
  /** Whether `store` was given (may be shared with other machines, so it is re-read before prompts). */
  shared: boolean;
  overlayFile: string | undefined;
  suggestAfter: number | undefined;
  wildMode: boolean;
  now: () => number;
}

const KEYS = new Set([
  'strategy',
  'timeoutMs',
  'maxConfirmationsPerSession',
  'grants',
  'dir',
  'store',
  'overlayFile',
  'suggestAfter',
  'wildMode',
  'env',
  'now',
]);

const DEFAULT_TIMEOUT_MS = 120_000;

function positiveInt(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

function positiveMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function nonEmptyPath(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && !value.includes('\0');
}

/** Validates options once, at construction: a mistake throws here, naming the field and value. */
export function compileOptions(options: ApprovalsOptions): CompiledOptions {
  const bad = (field: string, value: unknown, expected: string) =>
    invalidOption('approvals', field, value, expected);
  if (options === null || typeof options !== 'object') throw bad('options', options, 'an object');
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key))
      throw bad(key, (options as unknown as Record<string, unknown>)[key], `one of ${[...KEYS].join(', ')}`);
  }
  const env = options.env ?? process.env;
  if (env === null || typeof env !== 'object') throw bad('env', env, 'an object');
  const wildMode = options.wildMode ?? env.TOOLGATE_WILD_MODE === 'true';
  if (typeof wildMode !== 'boolean') throw bad('wildMode', options.wildMode, 'a boolean');
  const s = options.strategy;
  if (s === null || typeof s !== 'object' || typeof s.ask !== 'function' || typeof s.name !== 'string')
    throw bad('strategy', s, 'a strategy (tty(), queue(), firstOf([...]), autoAllow(), autoDeny())');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!positiveMs(timeoutMs)) throw bad('timeoutMs', timeoutMs, 'a positive number of milliseconds');
  const max = options.maxConfirmationsPerSession;
  if (max !== undefined && !positiveInt(max))
    throw bad('maxConfirmationsPerSession', max, 'a positive integer');
  const grants = options.grants ?? {};
  if (grants === null || typeof grants !== 'object') throw bad('grants', grants, 'an object');
  for (const key of Object.keys(grants)) {
    if (key !== 'ttlMs' && key !== 'maxUses')
      throw bad(`grants.${key}`, (grants as Record<string, unknown>)[key], 'one of ttlMs, maxUses');
  }
  if (grants.ttlMs !== undefined && !positiveMs(grants.ttlMs))
    throw bad('grants.ttlMs', grants.ttlMs, 'a positive number of milliseconds');
  if (grants.maxUses !== undefined && !positiveInt(grants.maxUses))
    throw bad('grants.maxUses', grants.maxUses, 'a positive integer');
  if (options.dir !== undefined && !nonEmptyPath(options.dir))
    throw bad('dir', options.dir, 'a directory path');
  const store = options.store;
  if (
    store !== undefined &&
    (store === null ||
      typeof store !== 'object' ||
      typeof store.load !== 'function' ||
      typeof store.save !== 'function' ||
      typeof store.name !== 'string')
  )
    throw bad('store', store, 'a GrantStore (name, load(), save())');
  if (store !== undefined && options.dir !== undefined)
    throw bad('dir', options.dir, 'absent when store is given (the store decides where grants live)');
  if (options.overlayFile !== undefined && !nonEmptyPath(options.overlayFile))
    throw bad('overlayFile', options.overlayFile, 'a file path');
  if (options.suggestAfter !== undefined && !positiveInt(options.suggestAfter))
    throw bad('suggestAfter', options.suggestAfter, 'a positive integer');
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') throw bad('now', now, `a function, not ${describeValue(now)}`);
  return {
    strategy: s,
    timeoutMs,
    maxConfirmations: max,
    grants: { ...grants },
    dir: options.dir,
    store: store ?? (options.dir !== undefined ? fileGrantStore(options.dir) : undefined),
    shared: store !== undefined,
    overlayFile: options.overlayFile,
    suggestAfter: options.suggestAfter,
    wildMode,
    now,
  };
}
