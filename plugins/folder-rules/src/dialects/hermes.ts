import type { Op } from '@toolgate/core';
import { configError } from '../configError.js';
import type { PolicyDraft } from '../draft.js';
import { expandVars } from '../expandVars.js';
import { isRecord } from '../parseConfig.js';
import type { DefaultSpec, PolicyRule, RuleAccess, Vector } from '../types.js';
import { type LoadContext, rootPattern, stringList } from './fields.js';

const OPEN: DefaultSpec = { read: 'allow', write: 'allow' };
const CLOSED: DefaultSpec = { read: 'deny', write: 'deny' };

/**
 * Hermes `tools.*` (seed 003): `tools.terminal.allowed_paths/denied_paths` judge what shell commands touch,
 * `tools.file.allowed_read_paths/allowed_write_paths` what file and MCP tools touch; an unset list is no
 * restriction. `allow_metacharacters` is carried to the shell plugin. `${VAR}` expand at load, `~` per call.
 */
export function loadHermes(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
  const tools = isRecord(data) ? data.tools : undefined;
  if (tools !== undefined && !isRecord(tools)) throw configError(file, 'tools', tools, 'expected a mapping');
  const terminal = tools?.terminal ?? {};
  const fileTool = tools?.file ?? {};
  if (!isRecord(terminal)) throw configError(file, 'tools.terminal', terminal, 'expected a mapping');
  if (!isRecord(fileTool)) throw configError(file, 'tools.file', fileTool, 'expected a mapping');
  const rules: PolicyRule[] = [];
  const add = (list: string[] | undefined, field: string, access: RuleAccess, vector: Vector, ops?: Op[]) =>
    list?.forEach((p, i) => {
      rules.push({
        pattern: rootPattern(p, ctx.env, file, `${field}[${i}]`),
        access,
        vector,
        ...(ops ? { ops } : {}),
        source: `hermes:${file}#${field}[${i}]`,
      });
    });
  const allowed = stringList(terminal.allowed_paths, file, 'tools.terminal.allowed_paths');
  const denied = stringList(terminal.denied_paths, file, 'tools.terminal.denied_paths');
  const reads = stringList(fileTool.allowed_read_paths, file, 'tools.file.allowed_read_paths');
  const writes = stringList(fileTool.allowed_write_paths, file, 'tools.file.allowed_write_paths');
  add(denied, 'tools.terminal.denied_paths', 'deny', 'shell');
  add(allowed, 'tools.terminal.allowed_paths', 'write', 'shell');
  // The read list grants reads and says nothing about writes (a path in both lists stays writable).
  add(reads, 'tools.file.allowed_read_paths', 'write', 'file', ['read']);
  add(writes, 'tools.file.allowed_write_paths', 'write', 'file');
  const code = tools?.code_execution ?? {};
  if (!isRecord(code)) throw configError(file, 'tools.code_execution', code, 'expected a mapping');
  for (const [k, tool] of [
    ['terminal', terminal],
    ['file', fileTool],
    ['code_execution', code],
  ] as const)
    if (tool.enabled !== undefined && typeof tool.enabled !== 'boolean')
      throw configError(file, `tools.${k}.enabled`, tool.enabled, 'expected a boolean');
  const meta = terminal.allow_metacharacters ?? false;
  if (typeof meta !== 'boolean')
    throw configError(file, 'tools.terminal.allow_metacharacters', meta, 'expected a boolean');
  // "If allowed_paths / denied_paths is not set → current behavior (no restriction). Zero impact on existing
  // profiles." The metacharacter fail-closed belongs to the terminal check, so it applies once the terminal
  // is scoped; an unscoped terminal is analysed and allowed.
  const terminalScoped = allowed !== undefined || denied !== undefined;
  const shellDefault = terminal.enabled === false || allowed ? CLOSED : OPEN;
  // "allowed_read_paths controls reads (read_file), allowed_write_paths controls writes": each list restricts
  // its own operation only, so an unset read list leaves reads unrestricted.
  const fileDefault: DefaultSpec =
    fileTool.enabled === false
      ? CLOSED
      : { read: reads ? 'deny' : 'allow', write: writes ? 'deny' : 'allow' };
  const disabledVectors: Vector[] = [];
  if (terminal.enabled === false) disabledVectors.push('shell');
  if (fileTool.enabled === false) disabledVectors.push('file');
  const expand = (list: string[] | undefined, field: string) =>
    list?.map((p, i) => expandVars(p, ctx.env, file, `${field}[${i}]`));
  const allowedPaths = expand(allowed, 'tools.terminal.allowed_paths');
  const deniedPaths = expand(denied, 'tools.terminal.denied_paths');
  return {
    dialect: 'hermes',
    source: file,
    mode: 'tiered',
    rules,
    default: fileDefault,
    defaults: { shell: shellDefault, file: fileDefault },
    gates: {
      // `enabled: false` turns the tool off: every call, with or without paths.
      ...(disabledVectors.length > 0 ? { disabledVectors } : {}),
      ...(code.enabled === false ? { disabledTools: ['code_execution'] } : {}),
      // code_execution is one of the seed's "filesystem-touching tools": scoped by the terminal's lists
      // (it runs as a process, like the terminal) through the paths its code names, not refused outright.
      codeTools: { code_execution: { arg: 'code', dynamic: meta ? 'allow' : 'deny' } },
      // "No changes to tool schemas seen by the LLM — the LLM doesn't need to know about the allowlist."
      describe: false,
    },
    shell: {
      metacharacters: terminalScoped && !meta ? 'deny' : 'analyse',
      // Its `code` is Python judged by its literals here (gates.codeTools), not a command for the shell plugin.
      notShell: ['code_execution'],
      ...(allowedPaths ? { allowedPaths } : {}),
      ...(deniedPaths ? { deniedPaths } : {}),
    },
  };
}
