import { type NetworkSection, parseNetworkSection } from '@toolgate/core';
import { z } from 'zod';
import { configError } from '../configError.js';
import { defaultSpec, type PolicyDraft } from '../draft.js';
import { expandVars } from '../expandVars.js';
import { limitsSchema, parseLimits } from '../limits.js';
import { SELECTOR } from '../selectors.js';
import type { PolicyRule, ShellToolEntry } from '../types.js';
import type { LoadContext } from './fields.js';

const outcome = z.enum(['allow', 'deny', 'prompt']);
const defaultWord = z.enum(['allow', 'deny', 'prompt', 'read', 'write']);
const rule = z
  .object({
    pattern: z.string().min(1),
    access: z.enum(['deny', 'prompt', 'read', 'write']),
    description: z.string().optional(),
    vector: z.enum(['shell', 'file']).optional(),
    ops: z
      .array(z.enum(['read', 'write']))
      .min(1)
      .optional(),
  })
  .strict();
const selector = z.string().regex(SELECTOR, 'expected a selector such as "path", "paths[]" or "ops[].path"');
const toolSpec = z
  .object({
    op: z.enum(['read', 'write', 'list', 'copy', 'move', 'shell', 'opaque', 'none', 'patch']),
    pathArgs: z.array(z.string().min(1)).optional(),
    // Where the paths are at any depth (`ops[].path`), each with the tool's op or its own.
    paths: z
      .array(
        z.union([
          selector,
          z.object({ arg: selector, op: z.enum(['read', 'write', 'list']).optional() }).strict(),
        ]),
      )
      .optional(),
    subtree: z.boolean().optional(),
    writes: z.array(z.string().min(1)).optional(),
    // Arguments holding URLs the tool connects to (judged by the network section).
    urls: z
      .array(
        z.union([
          selector,
          z.object({ arg: selector, method: z.enum(['read', 'write']).optional() }).strict(),
        ]),
      )
      .optional(),
    urlText: z.array(z.string().min(1)).optional(),
  })
  .strict();
const argName = z.string().min(1);
// A shell tool the policy adds to @toolgate/shell's table (its `ShellToolSpec`); checked here so a wrong
// field name fails at load with the file and field, not silently at the first call.
const shellTool = z
  .object({
    commandArg: argName,
    form: z.enum(['script', 'argv', 'either']).optional(),
    cwdArg: z.union([argName, z.array(argName).min(1)]).optional(),
    envArg: argName.optional(),
    shellArg: argName.optional(),
    loginArg: argName.optional(),
    defaultShell: argName.optional(),
    defaultLogin: z.boolean().optional(),
    base: argName.optional(),
    kind: z.enum(['command', 'input', 'code', 'patch']).optional(),
    inputFlagArg: argName.optional(),
    applyPatch: z.boolean().optional(),
    userArg: argName.optional(),
  })
  .strict();
const test = z
  .object({
    call: z.object({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()) }).optional(),
    path: z.string().min(1).optional(),
    op: z.enum(['read', 'write', 'list']).optional(),
    // A network test: the host (or URL) a call reaches and how (see ../networkTests.ts).
    host: z.string().min(1).optional(),
    method: z.enum(['read', 'write']).optional(),
    expect: outcome,
  })
  .strict()
  .refine((t) => [t.call, t.path, t.host].filter((x) => x !== undefined).length === 1, {
    message: 'a test needs one of `call`, `path` or `host`',
  });
// The network section's shape (JSON Schema, unknown keys); its values are checked by core's
// parseNetworkSection, whose errors name the field (`network.rules[2].host`) and the value.
const networkRule = z
  .object({
    host: z.string(),
    action: outcome,
    method: z.enum(['read', 'write', 'any']).optional(),
    ports: z.array(z.number().int()).optional(),
    schemes: z.array(z.string()).optional(),
    description: z.string().optional(),
  })
  .strict();
const network = z
  .object({
    default: outcome.optional(),
    presets: z.array(z.string()).optional(),
    rules: z.array(networkRule).optional(),
  })
  .strict();

const layer = z
  .object({
    version: z.literal(1).optional(),
    mode: z.enum(['tiered', 'first-match']).optional(),
    default: z.union([defaultWord, z.object({ read: outcome, write: outcome }).strict()]).optional(),
    rules: z.array(rule).optional(),
    unknownTools: outcome.optional(),
    tools: z.record(z.string(), toolSpec).optional(),
    rejectTraversal: z.boolean().optional(),
    relativeTo: z.enum(['cwd', 'workspace']).optional(),
    hideWriteTools: z.boolean().optional(),
    shell: z
      .object({
        metacharacters: z.enum(['deny', 'analyse']).optional(),
        allowedPaths: z.array(z.string()).optional(),
        deniedPaths: z.array(z.string()).optional(),
        // Entries are checked first by `shellToolsOf` (see `loadToolgate`), so an error names the field
        // inside the entry rather than the union.
        tools: z.record(z.string().min(1), z.union([z.literal(false), shellTool])).optional(),
        notShell: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .optional(),
    tests: z.array(test).optional(),
    narrowOnly: z.boolean().optional(),
    // @toolgate/sandbox: run shell calls analysis cannot prove (or every one) under the OS sandbox.
    sandbox: z.enum(['off', 'uncertain', 'always']).optional(),
    // What a call analysis cannot prove gets when it does not run in the sandbox (default deny; never allow).
    uncertain: z.enum(['deny', 'prompt']).optional(),
    // What a sandboxed run may use: { processes, memory, wallTime, tmpSize } (see ../limits.ts).
    limits: limitsSchema.optional(),
    // Hosts the agent's calls (and the sandbox) may reach; absent: the network is not restricted.
    network: network.optional(),
  })
  .strict();

/** The native format: YAML, JSON or TOML. Its JSON Schema is generated from this (see `policySchema`). */
export const nativeSchema = layer.extend({ agents: z.record(z.string(), layer).optional() }).strict();
export type NativePolicy = z.infer<typeof nativeSchema>;

/** Checks the policy's shell tools one by one: an error names `shell.tools.<name>.<field>` and the value. */
function shellToolsOf(
  tools: Record<string, unknown>,
  file: string,
  field: string,
): Record<string, ShellToolEntry | false> {
  const out: Record<string, ShellToolEntry | false> = {};
  for (const [name, spec] of Object.entries(tools)) {
    if (spec === false) {
      out[name] = false;
      continue;
    }
    const parsed = shellTool.safeParse(spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      let value: unknown = spec;
      for (const k of issue?.path ?? [])
        value = (value as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey];
      const inner = issue?.path.length ? `.${issue.path.join('.')}` : '';
      throw configError(file, `${field}.${name}${inner}`, value, issue?.message ?? 'invalid shell tool');
    }
    out[name] = parsed.data;
  }
  return out;
}

function toDraft(data: z.infer<typeof layer>, file: string, prefix: string, ctx: LoadContext): PolicyDraft {
  const draft: PolicyDraft = { dialect: 'toolgate', source: file };
  if (data.network !== undefined) draft.network = networkOf(data.network, file, `${prefix}network`);
  if (data.mode) draft.mode = data.mode;
  if (data.default !== undefined)
    draft.default = typeof data.default === 'string' ? defaultSpec(data.default) : data.default;
  if (data.rules) {
    draft.rules = data.rules.map((r, i): PolicyRule => {
      const field = `${prefix}rules[${i}]`;
      let pattern = expandVars(r.pattern, ctx.env, file, `${field}.pattern`);
      const block = pattern.startsWith('!');
      if (block) pattern = pattern.slice(1);
      if (block && r.access !== 'deny')
        throw configError(
          file,
          `${field}.access`,
          r.access,
          'a "!" pattern is a block: its access must be deny',
        );
      return {
        pattern,
        access: r.access,
        source: `toolgate:${file}#${field}`,
        ...(r.description !== undefined ? { description: r.description } : {}),
        ...(block ? { block } : {}),
        ...(r.vector ? { vector: r.vector } : {}),
        ...(r.ops ? { ops: r.ops } : {}),
      };
    });
  }
  if (data.unknownTools) draft.unknownTools = data.unknownTools;
  if (data.tools) draft.tools = data.tools;
  if (data.rejectTraversal !== undefined) draft.rejectTraversal = data.rejectTraversal;
  if (data.relativeTo) draft.relativeTo = data.relativeTo;
  if (data.hideWriteTools !== undefined) draft.hideWriteTools = data.hideWriteTools;
  if (data.shell) {
    const { tools, ...rest } = data.shell;
    // Without `metacharacters` the mode is the base policy's (under an overlay) or the plugin's default.
    draft.shell = {
      ...rest,
      ...(tools ? { tools: shellToolsOf(tools, file, `${prefix}shell.tools`) } : {}),
    };
    // Both lists only ever widen (fewer calls analysed as shell): a narrowOnly overlay may not use them.
    const removed = Object.entries(tools ?? {}).find(([, spec]) => spec === false);
    if (data.narrowOnly && removed)
      throw configError(
        file,
        `${prefix}shell.tools.${removed[0]}`,
        false,
        'a narrowOnly overlay cannot remove a shell tool',
      );
    if (data.narrowOnly && (data.shell.notShell?.length ?? 0) > 0)
      throw configError(
        file,
        `${prefix}shell.notShell`,
        data.shell.notShell,
        'a narrowOnly overlay cannot declare tools notShell',
      );
    for (const name of data.shell.notShell ?? [])
      if (data.shell.tools?.[name])
        throw configError(
          file,
          `${prefix}shell.notShell`,
          name,
          'a tool cannot be both in shell.tools and in notShell',
        );
    // folder-rules classifies them as shell tools too: a call the shell plugin did not claim is denied.
    const added = Object.entries(draft.shell.tools ?? {}).filter(([, spec]) => spec !== false);
    if (added.length > 0)
      draft.tools = {
        ...Object.fromEntries(added.map(([name]) => [name, { op: 'shell' as const }])),
        ...draft.tools,
      };
  }
  if (data.narrowOnly !== undefined) draft.narrowOnly = data.narrowOnly;
  if (data.sandbox !== undefined) draft.extras = { ...draft.extras, sandbox: data.sandbox };
  if (data.uncertain !== undefined) draft.extras = { ...draft.extras, uncertain: data.uncertain };
  if (data.limits !== undefined)
    draft.extras = { ...draft.extras, limits: parseLimits(data.limits, file, prefix) };
  if (data.tests) {
    draft.tests = data.tests.map((t, i) => ({
      expect: t.expect,
      source: `toolgate:${file}#${prefix}tests[${i}]`,
      ...(t.call ? { call: { tool: t.call.tool, args: t.call.args } } : {}),
      ...(t.path ? { path: t.path } : {}),
      ...(t.op ? { op: t.op } : {}),
      ...(t.host ? { host: t.host } : {}),
      ...(t.method ? { method: t.method } : {}),
    }));
  }
  return draft;
}

/** The `network` section, checked by core (the same validation the sandbox's proxy config gets). */
function networkOf(spec: unknown, file: string, field: string): NetworkSection {
  return parseNetworkSection(spec, file, field);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Checks the shell tools of the policy and of each agent overlay before the whole schema does. */
function precheckShellTools(data: unknown, file: string): void {
  if (!isRecord(data)) return;
  const layers: Array<[string, unknown]> = [['', data]];
  if (isRecord(data.agents))
    for (const [name, o] of Object.entries(data.agents)) layers.push([`agents.${name}.`, o]);
  for (const [prefix, layer] of layers) {
    if (!isRecord(layer) || !isRecord(layer.shell) || !isRecord(layer.shell.tools)) continue;
    shellToolsOf(layer.shell.tools, file, `${prefix}shell.tools`);
  }
}

export function loadToolgate(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
  precheckShellTools(data, file);
  const parsed = nativeSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    let value: unknown = data;
    for (const k of issue?.path ?? [])
      value = (value as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey];
    throw configError(file, field, value, issue?.message ?? 'invalid');
  }
  const draft = toDraft(parsed.data, file, '', ctx);
  if (parsed.data.agents) {
    draft.agents = {};
    for (const [name, overlay] of Object.entries(parsed.data.agents))
      draft.agents[name] = toDraft(overlay, file, `agents.${name}.`, ctx);
  }
  return draft;
}
