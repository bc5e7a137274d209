import { configError } from '../configError.js';
import type { PolicyDraft } from '../draft.js';
import { expandVars } from '../expandVars.js';
import { isRecord } from '../parseConfig.js';
import type { DefaultSpec, PolicyRule, RuleAccess } from '../types.js';
import type { LoadContext } from './fields.js';
import { PERMISSION_SET_FILESYSTEM, TIER_PERMISSION_SET, TIER_PRESETS, type Tier } from './tierPresets.js';

const TIERS = Object.keys(TIER_PRESETS);

interface TierFlags {
  read?: boolean;
  write?: boolean;
}

function accessOf(read: boolean, write: boolean): RuleAccess {
  if (read && write) return 'write';
  if (read) return 'read';
  // Write without read has no tier in the model; failing closed, it denies (lint says so).
  return 'deny';
}

function compileFolderConfig(
  cfg: Record<string, unknown>,
  file: string,
  field: string,
  ctx: LoadContext,
  flags: TierFlags | undefined,
): PolicyDraft {
  const dp = cfg.defaultPolicy ?? 'deny';
  if (dp !== 'allow' && dp !== 'deny')
    throw configError(file, `${field}defaultPolicy`, dp, 'expected "allow" or "deny"');
  const inherit = cfg.inheritFromTier ?? false;
  if (typeof inherit !== 'boolean')
    throw configError(file, `${field}inheritFromTier`, inherit, 'expected a boolean');
  const rawRules = cfg.rules ?? [];
  if (!Array.isArray(rawRules))
    throw configError(file, `${field}rules`, rawRules, 'expected a list of rules');
  const rules: PolicyRule[] = rawRules.map((r, i) => {
    const f = `${field}rules[${i}]`;
    if (!isRecord(r)) throw configError(file, f, r, 'expected {pattern, read, write}');
    if (typeof r.pattern !== 'string' || r.pattern.trim() === '')
      throw configError(file, `${f}.pattern`, r.pattern, 'expected a glob');
    for (const k of ['read', 'write'] as const)
      if (r[k] !== undefined && typeof r[k] !== 'boolean')
        throw configError(file, `${f}.${k}`, r[k], 'expected a boolean');
    let pattern = expandVars(r.pattern.trim(), ctx.env, file, `${f}.pattern`);
    const block = pattern.startsWith('!');
    if (block) pattern = pattern.slice(1);
    const access = block ? 'deny' : accessOf(r.read === true, r.write === true);
    return {
      pattern,
      access,
      source: `wunderland:${file}#${f}`,
      ...(typeof r.description === 'string' ? { description: r.description } : {}),
      ...(block ? { block: true } : {}),
      ...(block && (r.read === true || r.write === true)
        ? { description: `${r.description ?? ''} (flags say allow; "!" blocks)`.trim() }
        : {}),
      // The marker lint reads: the author asked for a write the model cannot grant without the read.
      ...(!block && r.read !== true && r.write === true
        ? { description: `${r.description ?? ''} (write without read: denied)`.trim() }
        : {}),
    };
  });
  // "If defaultPolicy is deny and inheritFromTier is true, fall back to security tier permissions" — the
  // tier's filesystem flags. With none given, inheriting grants nothing.
  let def: DefaultSpec = dp === 'allow' ? { read: 'allow', write: 'allow' } : { read: 'deny', write: 'deny' };
  if (dp === 'deny' && inherit && flags) {
    def = { read: flags.read || flags.write ? 'allow' : 'deny', write: flags.write ? 'allow' : 'deny' };
  }
  return { dialect: 'wunderland', source: file, mode: 'first-match', rules, default: def };
}

/**
 * The flags `inheritFromTier` falls back to — "the agent's permission set / tier filesystem flags": explicit
 * `filesystem: {read, write}` first, else the `permissionSet`'s, else the tier's recommended set's.
 */
function inheritedFlags(
  holder: Record<string, unknown>,
  tier: unknown,
  file: string,
  prefix: string,
  setHolder: Record<string, unknown> = holder,
  setPrefix = prefix,
): TierFlags | undefined {
  const explicit = tierFlags(holder.filesystem, file, `${prefix}filesystem`);
  if (explicit) return explicit;
  const set = setHolder.permissionSet;
  if (set !== undefined) {
    if (typeof set !== 'string' || !Object.hasOwn(PERMISSION_SET_FILESYSTEM, set))
      throw configError(
        file,
        `${setPrefix}permissionSet`,
        set,
        `expected one of ${Object.keys(PERMISSION_SET_FILESYSTEM).join(', ')}`,
      );
    return PERMISSION_SET_FILESYSTEM[set];
  }
  if (typeof tier === 'string' && TIERS.includes(tier))
    return PERMISSION_SET_FILESYSTEM[TIER_PERMISSION_SET[tier as Tier]];
  return undefined;
}

function tierFlags(v: unknown, file: string, field: string): TierFlags | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v)) throw configError(file, field, v, 'expected {read, write} booleans');
  const out: TierFlags = {};
  for (const k of ['read', 'write'] as const) {
    if (v[k] === undefined) continue;
    if (typeof v[k] !== 'boolean') throw configError(file, `${field}.${k}`, v[k], 'expected a boolean');
    out[k] = v[k] as boolean;
  }
  return out;
}

/**
 * Wunderland (seed 001): a FolderPermissionConfig (`defaultPolicy`, `rules`, `inheritFromTier`), a bare
 * `{tier}` selecting one of the five presets, or an `agent.config.json` with `security.tier` and
 * `security.folderPermissions`. First match wins; `!` rules are blocks that apply wherever they stand.
 */
export function loadWunderland(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
  if (!isRecord(data))
    throw configError(file, '(root)', data, 'expected a FolderPermissionConfig or agent config');
  const { agents, ...rest } = data;
  if (agents === undefined) return loadOne(data, file, ctx, '');
  // "guardrails.setFolderPermissions('agent-id', config)": one file, a config per agent id, each in any of
  // the shapes below; what is beside `agents` is the global policy (default deny when there is none).
  if (!isRecord(agents)) throw configError(file, 'agents', agents, 'expected {agentId: config}');
  const global: PolicyDraft =
    Object.keys(rest).length > 0
      ? loadOne(rest, file, ctx, '')
      : {
          dialect: 'wunderland',
          source: file,
          mode: 'first-match',
          rules: [],
          default: { read: 'deny', write: 'deny' },
        };
  global.agents = {};
  for (const [id, cfg] of Object.entries(agents)) {
    if (!isRecord(cfg))
      throw configError(file, `agents.${id}`, cfg, 'expected a FolderPermissionConfig or agent config');
    global.agents[id] = loadOne(cfg, file, ctx, `agents.${id}.`);
  }
  return global;
}

function loadOne(data: Record<string, unknown>, file: string, ctx: LoadContext, at: string): PolicyDraft {
  if (isRecord(data.security) || data.seedId !== undefined) {
    const sec = isRecord(data.security) ? data.security : {};
    const tier = sec.tier;
    if (tier !== undefined && (typeof tier !== 'string' || !TIERS.includes(tier)))
      throw configError(file, `${at}security.tier`, tier, `expected one of ${TIERS.join(', ')}`);
    const flags = inheritedFlags(sec, tier, file, `${at}security.`, data, at);
    if (sec.folderPermissions === undefined) {
      // "If security.folderPermissions is unset, a conservative default sandbox is applied (agent workspace only)."
      return {
        dialect: 'wunderland',
        source: file,
        mode: 'first-match',
        rules: [
          {
            pattern: '<workspace>/**',
            access: 'write',
            description: 'default sandbox: agent workspace only',
            source: `wunderland:${file}#${at}security.folderPermissions(unset)`,
          },
        ],
        default: { read: 'deny', write: 'deny' },
        extras: { tier: tier ?? null },
      };
    }
    if (!isRecord(sec.folderPermissions))
      throw configError(
        file,
        `${at}security.folderPermissions`,
        sec.folderPermissions,
        'expected a FolderPermissionConfig',
      );
    const draft = compileFolderConfig(
      sec.folderPermissions,
      file,
      `${at}security.folderPermissions.`,
      ctx,
      flags,
    );
    return { ...draft, extras: { tier: tier ?? null } };
  }
  if (typeof data.tier === 'string' && data.rules === undefined) {
    if (!TIERS.includes(data.tier))
      throw configError(file, `${at}tier`, data.tier, `expected one of ${TIERS.join(', ')}`);
    const preset = TIER_PRESETS[data.tier as Tier];
    const draft = compileFolderConfig(
      preset as unknown as Record<string, unknown>,
      file,
      `${at}preset:${data.tier}.`,
      ctx,
      // A bare preset names no agent, so no permission set unless it gives one.
      inheritedFlags(data, undefined, file, at),
    );
    return { ...draft, extras: { tier: data.tier } };
  }
  for (const key of Object.keys(data)) {
    if (!['defaultPolicy', 'rules', 'inheritFromTier', 'filesystem', 'tier', 'permissionSet'].includes(key))
      throw configError(file, `${at}${key}`, data[key], 'unknown field');
  }
  return compileFolderConfig(data, file, at, ctx, inheritedFlags(data, undefined, file, at));
}
