import { configError } from '../configError.js';
import { defaultSpec, type PolicyDraft } from '../draft.js';
import { isRecord } from '../parseConfig.js';
import type { PolicyRule } from '../types.js';
import { type LoadContext, rootPattern, stringList } from './fields.js';

const KNOWN = [
  'allowed_write_paths',
  'max_confirmations_per_session',
  'audit_denied',
  'audit_log_file',
  'wild_mode',
];

/**
 * wolo PathGuard (seed 002): `path_safety` YAML. Writes are allowed under the workdir, `/tmp` and
 * `allowed_write_paths`; any other write needs a confirmation (prompt); reads are not guarded.
 * `wild_mode: true` (or `WOLO_WILD_MODE=true`) allows everything, and every decision is audited.
 */
export function loadWolo(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
  const root = isRecord(data) && isRecord(data.path_safety) ? data.path_safety : data;
  const prefix = isRecord(data) && isRecord(data.path_safety) ? 'path_safety.' : '';
  if (root === null || root === undefined) return loadWolo({}, file, ctx);
  if (!isRecord(root)) throw configError(file, 'path_safety', root, 'expected a mapping');
  for (const key of Object.keys(root))
    if (!KNOWN.includes(key)) throw configError(file, `${prefix}${key}`, root[key], 'unknown field');
  const paths = stringList(root.allowed_write_paths, file, `${prefix}allowed_write_paths`) ?? [];
  const max = root.max_confirmations_per_session;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 0))
    throw configError(file, `${prefix}max_confirmations_per_session`, max, 'expected a non-negative integer');
  for (const k of ['audit_denied', 'wild_mode'] as const)
    if (root[k] !== undefined && typeof root[k] !== 'boolean')
      throw configError(file, `${prefix}${k}`, root[k], 'expected a boolean');
  if (root.audit_log_file !== undefined && typeof root.audit_log_file !== 'string')
    throw configError(file, `${prefix}audit_log_file`, root.audit_log_file, 'expected a path');
  const wild = root.wild_mode === true || ctx.env.WOLO_WILD_MODE === 'true';
  const extras = {
    maxConfirmationsPerSession: max ?? 10,
    auditDenied: root.audit_denied ?? false,
    ...(root.audit_log_file !== undefined ? { auditLogFile: root.audit_log_file } : {}),
    wild,
    ...(wild ? { audit: 'all' } : {}),
  };
  if (wild) {
    return {
      dialect: 'wolo',
      source: file,
      mode: 'tiered',
      rules: [],
      default: defaultSpec('allow'),
      unknownTools: 'allow',
      disabled: true,
      extras,
    };
  }
  // Priority order of the seed (workdir, /tmp, CLI paths, config paths) — all grant the same: a write
  // without confirmation. Order does not change the outcome of a pure allowlist.
  const rules: PolicyRule[] = [
    { pattern: '<workspace>/**', access: 'write', description: 'workdir', source: `wolo:${file}#workdir` },
    {
      pattern: '/tmp/**',
      access: 'write',
      description: '/tmp is always allowed',
      source: `wolo:${file}#/tmp`,
    },
    // "3. cli_paths - From --allow-path/-P CLI arguments" (and `to_path_guard_config(cli_paths=…)`).
    ...(ctx.cliPaths ?? []).map(
      (p, i): PolicyRule => ({
        pattern: rootPattern(p, ctx.env, '(command line)', `cli_paths[${i}]`),
        access: 'write',
        description: '--allow-path',
        source: `wolo:(command line)#cli_paths[${i}]`,
      }),
    ),
    ...paths.map(
      (p, i): PolicyRule => ({
        pattern: rootPattern(p, ctx.env, file, `${prefix}allowed_write_paths[${i}]`),
        access: 'write',
        source: `wolo:${file}#${prefix}allowed_write_paths[${i}]`,
      }),
    ),
  ];
  return {
    dialect: 'wolo',
    source: file,
    mode: 'tiered',
    rules,
    default: { read: 'allow', write: 'prompt' },
    extras,
  };
}
