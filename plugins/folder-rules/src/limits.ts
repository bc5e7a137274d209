import { z } from 'zod';
import { configError } from './configError.js';

/**
 * What a sandboxed run may use (@toolgate/sandbox enforces it; issue 23). Normalised from the policy's
 * `limits:` (`{ processes: 256, memory: 2GiB, wallTime: 10m, tmpSize: 512MiB }`); a missing field is no limit.
 */
export interface SandboxLimits {
  /** Processes and threads the sandboxed command may have at once (RLIMIT_NPROC inside its user namespace). */
  processes?: number;
  /** Bytes of private writable memory each process may map (RLIMIT_DATA: heap and anonymous mappings). */
  memoryBytes?: number;
  /** Milliseconds the run may last before it is ended. */
  wallTimeMs?: number;
  /** Bytes the run may write into `/tmp` (a private tmpfs of that size where the policy lets it write `/tmp`). */
  tmpSizeBytes?: number;
}

const sizeOrNumber = z.union([z.number(), z.string()]);

/** The `limits:` field of the native dialect (values are checked by `parseLimits`, which names the field). */
export const limitsSchema = z
  .object({
    processes: z.number().optional(),
    memory: sizeOrNumber.optional(),
    wallTime: sizeOrNumber.optional(),
    tmpSize: sizeOrNumber.optional(),
  })
  .strict();

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kib: 1024,
  kb: 1000,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  mb: 1000 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  gb: 1000 ** 3,
  t: 1024 ** 4,
  tib: 1024 ** 4,
  tb: 1000 ** 4,
};

const DURATION: Record<string, number> = { ms: 1, s: 1000, '': 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** A size: bytes as a number, or `512MiB`, `2GiB`, `1.5G` (K/M/G/T and KiB… are 1024-based, KB/MB… 1000). */
export function parseSize(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** A duration: seconds as a number, or `90s`, `10m`, `1.5h`, `500ms`. */
export function parseDuration(value: number | string): number | undefined {
  const m = typeof value === 'number' ? undefined : /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? DURATION[m[2]!.toLowerCase()] : undefined;
  const ms =
    typeof value === 'number' ? value * 1000 : m && unit !== undefined ? Number(m[1]) * unit : Number.NaN;
  return Number.isFinite(ms) && ms >= 1 && ms <= 2 ** 31 - 1 ? Math.round(ms) : undefined;
}

/** The smallest memory limit taken: below it the shell and the loader cannot start. */
const MIN_MEMORY = 16 * 1024 ** 2;

/**
 * `limits:` of a policy layer, checked and normalised; throws a config error naming file, field and value.
 * `prefix`: where the layer sits (`agents.<name>.`).
 */
export function parseLimits(data: z.infer<typeof limitsSchema>, file: string, prefix: string): SandboxLimits {
  const out: SandboxLimits = {};
  const field = (name: string) => `${prefix}limits.${name}`;
  if (data.processes !== undefined) {
    if (!Number.isSafeInteger(data.processes) || data.processes < 2)
      throw configError(file, field('processes'), data.processes, 'a whole number of processes, at least 2');
    out.processes = data.processes;
  }
  if (data.memory !== undefined) {
    const bytes = parseSize(data.memory);
    if (bytes === undefined || bytes < MIN_MEMORY)
      throw configError(file, field('memory'), data.memory, 'a size of at least 16MiB, like 2GiB or 512MiB');
    out.memoryBytes = bytes;
  }
  if (data.wallTime !== undefined) {
    const ms = parseDuration(data.wallTime);
    if (ms === undefined)
      throw configError(
        file,
        field('wallTime'),
        data.wallTime,
        'a duration like 10m, 90s or 1h (a number is seconds)',
      );
    out.wallTimeMs = ms;
  }
  if (data.tmpSize !== undefined) {
    const bytes = parseSize(data.tmpSize);
    if (bytes === undefined)
      throw configError(file, field('tmpSize'), data.tmpSize, 'a size like 512MiB or 1GiB');
    out.tmpSizeBytes = bytes;
  }
  return out;
}

/** Field by field: what an overlay's `limits` sets replaces the base's, the rest inherits. */
export function layerLimits(
  base: Readonly<Record<string, unknown>> | undefined,
  overlay: Readonly<Record<string, unknown>>,
): SandboxLimits {
  return { ...(base?.limits as SandboxLimits | undefined), ...(overlay.limits as SandboxLimits) };
}

const FIELDS: ReadonlyArray<[keyof SandboxLimits, string]> = [
  ['processes', 'processes'],
  ['memoryBytes', 'memory'],
  ['wallTimeMs', 'wallTime'],
  ['tmpSizeBytes', 'tmpSize'],
];

/** A narrowOnly overlay may lower a limit or add one, never raise or drop one: the field it widened. */
export function widenedLimit(
  was: unknown,
  now: unknown,
): { field: string; value: unknown; why: string } | undefined {
  const before = (was ?? {}) as SandboxLimits;
  const after = (now ?? {}) as SandboxLimits;
  for (const [key, field] of FIELDS) {
    const limit = before[key];
    if (limit === undefined) continue;
    const next = after[key];
    if (next === undefined || next > limit)
      return {
        field,
        value: next ?? '(none)',
        why: `a narrowOnly overlay cannot raise limits.${field} (${limit})`,
      };
  }
  return undefined;
}
