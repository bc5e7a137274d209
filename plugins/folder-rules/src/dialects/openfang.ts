import { configError } from '../configError.js';
import { defaultSpec, type PolicyDraft } from '../draft.js';
import { expandVars } from '../expandVars.js';
import { isRecord } from '../parseConfig.js';
import type { PolicyRule, RuleAccess } from '../types.js';
import type { LoadContext } from './fields.js';

const TIERS: readonly [string, RuleAccess][] = [
  ['deny_paths', 'deny'],
  ['prompt_paths', 'prompt'],
  ['read_paths', 'read'],
  ['write_paths', 'write'],
];
const DEFAULTS = ['deny', 'prompt', 'read', 'write'];

function section(fp: unknown, file: string, field: string, ctx: LoadContext): PolicyDraft {
  const draft: PolicyDraft = { dialect: 'openfang', source: file, mode: 'tiered' };
  if (!isRecord(fp)) throw configError(file, field, fp, 'expected a [file_policy] table');
  for (const key of Object.keys(fp)) {
    if (key !== 'default' && key !== 'narrow_only' && !TIERS.some(([k]) => k === key))
      throw configError(file, `${field}.${key}`, fp[key], 'unknown field');
  }
  if (fp.default !== undefined) {
    if (typeof fp.default !== 'string' || !DEFAULTS.includes(fp.default))
      throw configError(file, `${field}.default`, fp.default, 'expected "deny", "prompt", "read" or "write"');
    draft.default = defaultSpec(fp.default as 'deny');
  }
  if (fp.narrow_only !== undefined) {
    if (typeof fp.narrow_only !== 'boolean')
      throw configError(file, `${field}.narrow_only`, fp.narrow_only, 'expected a boolean');
    draft.narrowOnly = fp.narrow_only;
  }
  // Overlay semantics per field: a non-empty list replaces, an omitted one inherits. The draft keeps each
  // tier's list apart so layering can replace one tier without touching the others.
  const tiers: Record<string, PolicyRule[]> = {};
  for (const [key, access] of TIERS) {
    const list = fp[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw configError(file, `${field}.${key}`, list, 'expected a list of globs');
    if (list.length === 0) continue;
    tiers[key] = list.map((p, i) => {
      if (typeof p !== 'string' || p.trim() === '')
        throw configError(file, `${field}.${key}[${i}]`, p, 'expected a glob');
      return {
        pattern: expandVars(p.trim(), ctx.env, file, `${field}.${key}[${i}]`),
        access,
        source: `openfang:${file}#${field}.${key}[${i}]`,
      };
    });
  }
  draft.extras = { tiers };
  if (Object.keys(tiers).length > 0) draft.rules = TIERS.flatMap(([k]) => tiers[k] ?? []);
  return draft;
}

/**
 * OpenFang `[file_policy]` (seed 004): tiers `deny > prompt > read > write`, most specific glob within a
 * tier, `<workspace>` and `~` resolved when bound. A global `config.toml` plus per-agent overlays
 * (`[agents.<name>.file_policy]` here, or an agent.toml given as an overlay). No `[file_policy]` at all keeps
 * the legacy gate: writes only under the workspace, reads unrestricted.
 */
export function loadOpenFang(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
  if (!isRecord(data)) throw configError(file, '(root)', data, 'expected a TOML table');
  let draft: PolicyDraft;
  const global =
    data.file_policy === undefined ? undefined : section(data.file_policy, file, 'file_policy', ctx);
  // "both-default returns None to preserve legacy behavior": a [file_policy] that sets no default and no
  // non-empty list is no policy at all, and the legacy gates stay.
  if (global === undefined || (global.default === undefined && global.rules === undefined)) {
    draft = {
      dialect: 'openfang',
      source: file,
      mode: 'tiered',
      rules: [
        {
          pattern: '<workspace>/**',
          access: 'write',
          description: 'legacy workspace-root lock',
          source: `openfang:${file}#(no file_policy)`,
        },
      ],
      default: { read: 'allow', write: 'deny' },
      rejectTraversal: true,
    };
  } else {
    draft = global;
    draft.default ??= defaultSpec('deny');
  }
  const approval = approvalTools(data.approval_policy, file, 'approval_policy');
  if (approval !== undefined) draft.gates = { approvalTools: approval };
  if (data.agents !== undefined) {
    if (!isRecord(data.agents)) throw configError(file, 'agents', data.agents, 'expected a table of agents');
    draft.agents = {};
    for (const [name, agent] of Object.entries(data.agents)) {
      if (!isRecord(agent) || agent.file_policy === undefined) continue;
      draft.agents[name] = section(agent.file_policy, file, `agents.${name}.file_policy`, ctx);
    }
  }
  return draft;
}

/**
 * `[approval_policy] requires_approval`: the tool-level approval gate the seed's file_policy sits beside
 * (`true` for every tool, or a list of tool names). toolgate asks it in the same single request as the
 * call's prompt-tier paths — the dedup the seed expects to land ("flips the assertion to 1").
 */
function approvalTools(v: unknown, file: string, field: string): true | string[] | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v)) throw configError(file, field, v, 'expected a table');
  for (const key of Object.keys(v))
    if (key !== 'requires_approval') throw configError(file, `${field}.${key}`, v[key], 'unknown field');
  const r = v.requires_approval;
  if (r === undefined || r === false) return undefined;
  if (r === true) return true;
  if (!Array.isArray(r) || r.some((t) => typeof t !== 'string' || t === ''))
    throw configError(file, `${field}.requires_approval`, r, 'expected true, false or a list of tool names');
  return r.length > 0 ? (r as string[]) : undefined;
}

/** An agent.toml overlay: its `[file_policy]` only (no legacy default, no defaults filled in). */
export function loadOpenFangOverlay(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
  if (!isRecord(data)) return { dialect: 'openfang', source: file };
  const approval = approvalTools(data.approval_policy, file, 'approval_policy');
  const draft: PolicyDraft =
    data.file_policy === undefined
      ? { dialect: 'openfang', source: file }
      : section(data.file_policy, file, 'file_policy', ctx);
  if (approval !== undefined) draft.gates = { approvalTools: approval };
  return draft;
}
