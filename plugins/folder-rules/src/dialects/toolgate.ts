import { z } from 'zod';
import { configError } from '../configError.js';
import { defaultSpec, type PolicyDraft } from '../draft.js';
import { expandVars } from '../expandVars.js';
import type { PolicyRule } from '../types.js';
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
const toolSpec = z
  .object({
    op: z.enum(['read', 'write', 'list', 'copy', 'move', 'shell', 'opaque', 'none']),
    pathArgs: z.array(z.string().min(1)).optional(),
    subtree: z.boolean().optional(),
  })
  .strict();
const test = z
  .object({
    call: z.object({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()) }).optional(),
    path: z.string().min(1).optional(),
    op: z.enum(['read', 'write', 'list']).optional(),
    expect: outcome,
  })
  .strict()
  .refine((t) => t.call !== undefined || t.path !== undefined, { message: 'a test needs `call` or `path`' });

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
        metacharacters: z.enum(['deny', 'analyse']),
        allowedPaths: z.array(z.string()).optional(),
        deniedPaths: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    tests: z.array(test).optional(),
    narrowOnly: z.boolean().optional(),
  })
  .strict();

/** The native format: YAML, JSON or TOML. Its JSON Schema is generated from this (see `policySchema`). */
export const nativeSchema = layer.extend({ agents: z.record(z.string(), layer).optional() }).strict();
export type NativePolicy = z.infer<typeof nativeSchema>;

function toDraft(data: z.infer<typeof layer>, file: string, prefix: string, ctx: LoadContext): PolicyDraft {
  const draft: PolicyDraft = { dialect: 'toolgate', source: file };
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
  if (data.shell) draft.shell = data.shell;
  if (data.narrowOnly !== undefined) draft.narrowOnly = data.narrowOnly;
  if (data.tests) {
    draft.tests = data.tests.map((t, i) => ({
      expect: t.expect,
      source: `toolgate:${file}#${prefix}tests[${i}]`,
      ...(t.call ? { call: { tool: t.call.tool, args: t.call.args } } : {}),
      ...(t.path ? { path: t.path } : {}),
      ...(t.op ? { op: t.op } : {}),
    }));
  }
  return draft;
}

export function loadToolgate(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
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
