import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  DEFAULT_SEVERITY_RULES,
  type Decision,
  describeValue,
  type SeverityRule,
  type ToolCall,
  ToolgateError,
} from '@toolgate/core';
import type { DestinationStream } from 'pino';
import type { Durability } from './durableFile.js';
import type { RecordFormat } from './record.js';
import type { RedactOptions } from './redact.js';

export interface AuditLogOptions {
  /** The trail file (default `~/.toolgate/audit/violations.log`); rotated files sit beside it as `.1` … `.keep`. */
  file?: string;
  /** `violations` (default): denies only, including denied approvals. `all`: every decision. */
  level?: 'violations' | 'all';
  /** Default `sync`: the record is written before `check()` resolves. See `Durability`. */
  durability?: Durability;
  /** Rotate before the file would exceed this many bytes (default 10 MiB, seed 001). */
  maxSize?: number;
  /** Rotated files kept (default 5, seed 001). */
  keep?: number;
  /** Gzip rotated files to `violations.log.N.gz`, in the background (default false). */
  compress?: boolean;
  /** Chain every record to the previous one by SHA-256 (default true); `toolgate audit verify` checks it. */
  chain?: boolean;
  /** `full` (default) or `seed`: exactly seed 001's eight fields (plus the chain). */
  format?: RecordFormat;
  /**
   * The policy's hash (folder-rules exposes `policy.hash`), or a function returning the one that decided
   * this call (it is given the decision and the call: a host that swaps policies between calls knows which
   * guard judged which call).
   */
  policyHash?: string | ((decision: Decision, call: ToolCall) => string | undefined);
  /** Severity rules, replacing core's `DEFAULT_SEVERITY_RULES` (spread them to extend). */
  severityRules?: readonly SeverityRule[];
  /** How arguments are redacted; `includeArgs: false` leaves them out entirely. */
  redact?: RedactOptions & { includeArgs?: boolean };
  /** Records held in memory while the disk fails (default 10 000); beyond that they are counted as dropped. */
  maxBuffered?: number;
  /** First retry after a disk failure, doubling up to 30 s (default 1000 ms). */
  retryMs?: number;
  /** Paths per record (default 32); the rest are counted in `pathsOmitted`. */
  maxPaths?: number;
  /**
   * Extra pino destinations (`pino.transport({target: 'pino-loki', …})`) that receive every record after it is
   * handed to the local trail (written with `sync`/`fsync`, queued with `async`). Their failures never touch the
   * local trail or the decision.
   */
  ship?: readonly DestinationStream[];
  /**
   * Fail closed (default false): while the trail cannot be written, every call is denied with
   * `AUDIT_UNAVAILABLE`. Without it a failing trail is reported (`audit-error` on `guard.events`) and
   * records are buffered and retried, but decisions are unchanged.
   */
  required?: boolean;
  /**
   * Other processes may append to this trail (hook processes of parallel tool calls): each takes the
   * `<file>.lock` advisory lock around append and rotate, waiting at most this many ms (default 2000).
   * `false`: this process is the only writer (no lock file).
   */
  lockWaitMs?: number | false;
}

export interface CompiledOptions {
  file: string;
  level: 'violations' | 'all';
  durability: Durability;
  maxSize: number;
  keep: number;
  chain: boolean;
  compress: boolean;
  format: RecordFormat;
  policyHash: (decision: Decision, call: ToolCall) => string | undefined;
  severityRules: readonly SeverityRule[];
  redact: RedactOptions;
  includeArgs: boolean;
  maxBuffered: number;
  retryMs: number;
  maxPaths: number;
  ship: readonly DestinationStream[];
  required: boolean;
  lockWaitMs: number | false;
}

/** `~` and `~/…` are the home directory (`HOME`, else the OS's idea of it). */
export function expandHome(path: string): string {
  if (path !== '~' && !path.startsWith('~/')) return path;
  const home = process.env.HOME || homedir();
  return join(home, path.slice(1));
}

export function defaultTrailFile(): string {
  return join(homedir(), '.toolgate', 'audit', 'violations.log');
}

const KEYS = new Set([
  'file',
  'level',
  'durability',
  'maxSize',
  'keep',
  'chain',
  'compress',
  'format',
  'policyHash',
  'severityRules',
  'redact',
  'maxBuffered',
  'retryMs',
  'maxPaths',
  'ship',
  'required',
  'lockWaitMs',
]);

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `auditLog: option ${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T))
    throw invalid(field, value, allowed.map((a) => JSON.stringify(a)).join(' or '));
  return value as T;
}

function integer(field: string, value: unknown, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw invalid(field, value, `an integer ≥ ${min}`);
  return value;
}

const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

function checkRules(value: unknown): readonly SeverityRule[] {
  if (value === undefined) return DEFAULT_SEVERITY_RULES;
  if (!Array.isArray(value)) throw invalid('severityRules', value, 'an array of severity rules');
  value.forEach((rule: unknown, i) => {
    const field = `severityRules[${i}]`;
    if (rule === null || typeof rule !== 'object') throw invalid(field, rule, 'an object');
    const r = rule as Record<string, unknown>;
    oneOf(`${field}.severity`, r.severity ?? null, SEVERITIES, 'low');
    const keys = ['under', 'component', 'basename'].filter((k) => r[k] !== undefined);
    if (keys.length === 0) throw invalid(field, rule, 'a rule with one of under, component, basename');
    for (const k of keys) {
      if (typeof r[k] !== 'string' || r[k] === '') throw invalid(`${field}.${k}`, r[k], 'a non-empty string');
    }
    if (r.under !== undefined && !isAbsolute(r.under as string))
      throw invalid(`${field}.under`, r.under, 'an absolute path');
    if (r.op !== undefined) oneOf(`${field}.op`, r.op, ['read', 'write'], 'read');
  });
  return Object.freeze([...(value as SeverityRule[])]);
}

/** Validates every option once, at construction; a mistake names the field and the value. */
export function compileOptions(options: AuditLogOptions): CompiledOptions {
  if (options === null || typeof options !== 'object') throw invalid('(options)', options, 'an object');
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key))
      throw invalid(key, (options as Record<string, unknown>)[key], `one of ${[...KEYS].join(', ')}`);
  }
  if (options.file !== undefined && (typeof options.file !== 'string' || options.file === ''))
    throw invalid('file', options.file, 'a non-empty path');
  // Seed 001 writes its path as `~/.wunderland/security/violations.log`: `~` is the operator's home, never a
  // directory named `~` under the process's cwd.
  const file = resolve(expandHome(options.file ?? defaultTrailFile()));
  try {
    if (statSync(file).isDirectory()) throw invalid('file', file, 'a file, not a directory');
  } catch (error) {
    if (error instanceof ToolgateError) throw error;
    // Missing is fine (created on first open); other errors are disk failures, handled at run time.
  }
  const hash = options.policyHash;
  if (hash !== undefined && typeof hash !== 'string' && typeof hash !== 'function')
    throw invalid('policyHash', hash, 'a string or a function returning one');
  const redact = options.redact ?? {};
  if (redact === null || typeof redact !== 'object') throw invalid('redact', redact, 'an object');
  if (
    redact.keys !== undefined &&
    (!Array.isArray(redact.keys) || redact.keys.some((k) => typeof k !== 'string'))
  )
    throw invalid('redact.keys', redact.keys, 'an array of argument names');
  integer('redact.maxString', redact.maxString, 16, 256);
  integer('redact.maxDepth', redact.maxDepth, 1, 6);
  integer('redact.maxItems', redact.maxItems, 1, 32);
  if (redact.includeArgs !== undefined && typeof redact.includeArgs !== 'boolean')
    throw invalid('redact.includeArgs', redact.includeArgs, 'a boolean');
  if (options.chain !== undefined && typeof options.chain !== 'boolean')
    throw invalid('chain', options.chain, 'a boolean');
  if (options.compress !== undefined && typeof options.compress !== 'boolean')
    throw invalid('compress', options.compress, 'a boolean');
  const ship = options.ship ?? [];
  if (!Array.isArray(ship)) throw invalid('ship', ship, 'an array of pino destinations');
  ship.forEach((s: unknown, i) => {
    if (s === null || typeof s !== 'object' || typeof (s as { write?: unknown }).write !== 'function')
      throw invalid(`ship[${i}]`, s, 'a pino destination (an object with write())');
  });
  if (options.required !== undefined && typeof options.required !== 'boolean')
    throw invalid('required', options.required, 'a boolean');
  const lockWaitMs =
    options.lockWaitMs === false ? false : integer('lockWaitMs', options.lockWaitMs, 1, 2_000);
  return {
    required: options.required ?? false,
    lockWaitMs,
    file,
    level: oneOf('level', options.level, ['violations', 'all'], 'violations'),
    durability: oneOf('durability', options.durability, ['sync', 'fsync', 'async'], 'sync'),
    maxSize: integer('maxSize', options.maxSize, 1024, 10 * 1024 * 1024),
    keep: integer('keep', options.keep, 0, 5),
    chain: options.chain ?? true,
    compress: options.compress ?? false,
    format: oneOf('format', options.format, ['full', 'seed'], 'full'),
    policyHash: typeof hash === 'function' ? hash : () => hash,
    severityRules: checkRules(options.severityRules),
    redact,
    includeArgs: redact.includeArgs ?? true,
    maxBuffered: integer('maxBuffered', options.maxBuffered, 1, 10_000),
    retryMs: integer('retryMs', options.retryMs, 1, 1000),
    maxPaths: integer('maxPaths', options.maxPaths, 1, 32),
    ship,
  };
}
