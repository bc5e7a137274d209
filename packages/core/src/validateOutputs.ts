import type { Access, Finding, PromptAnswer, ToolDescriptor } from './types.js';

// Plugins are third-party code: what they hand back is checked before core relies on it, so a malformed
// return value becomes PLUGIN_ERROR (deny), never a silently ignored objection.

export function accessProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return 'access is not an object';
  const a = value as Partial<Access>;
  if (a.op !== 'read' && a.op !== 'write' && a.op !== 'list')
    return `access.op must be "read", "write" or "list", got ${String(a.op)}`;
  if (a.scope !== 'path' && a.scope !== 'subtree')
    return `access.scope must be "path" or "subtree", got ${String(a.scope)}`;
  if (typeof a.raw !== 'string' || typeof a.path !== 'string')
    return 'access.raw and access.path must be strings';
  if (typeof a.certain !== 'boolean') return 'access.certain must be a boolean';
  if (a.certain && typeof a.realPath !== 'string') return 'a certain access needs a string realPath';
  if (typeof a.origin !== 'string') return 'access.origin must be a string';
  return undefined;
}

export function findingProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object')
    return `verdict must be an object or undefined, got ${typeof value}`;
  const f = value as Partial<Finding> & { action?: unknown };
  if (f.action !== 'deny' && f.action !== 'prompt')
    return `verdict.action must be "deny" or "prompt", got ${JSON.stringify(f.action)}`;
  if (typeof f.code !== 'string' || f.code === '') return 'verdict.code must be a non-empty string';
  if (typeof f.reason !== 'string' || f.reason === '') return 'verdict.reason must be a non-empty string';
  return undefined;
}

export function answerProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object')
    return `answer must be an object or undefined, got ${typeof value}`;
  if (typeof (value as PromptAnswer).approved !== 'boolean') return 'answer.approved must be a boolean';
  return undefined;
}

export function toolsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'tools must be an array';
  for (const t of value as ToolDescriptor[]) {
    if (t === null || typeof t !== 'object' || typeof t.name !== 'string')
      return 'every tool needs a string name';
  }
  return undefined;
}

export function isThenable(value: unknown): boolean {
  return (
    value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
  );
}
