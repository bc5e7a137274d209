import { configError } from '../configError.js';
import { defaultSpec, type PolicyDraft } from '../draft.js';
import { isRecord } from '../parseConfig.js';
import type { PolicyRule } from '../types.js';
import { type LoadContext, noTraversal, rootPattern, stringList } from './fields.js';

/**
 * Folder Guard (seed 000): `{readPaths, writePaths}`. Write implies read; both empty turns the guard off;
 * relative paths and the `Downloads/` exception are against the workspace; any `..` in a raw path is
 * rejected; nothing is writable when `writePaths` is empty; write tools are hidden then.
 */
export function loadFolderGuard(data: unknown, file: string, ctx: LoadContext): PolicyDraft {
  if (!isRecord(data))
    throw configError(file, '(root)', data, 'expected an object with readPaths and writePaths');
  for (const key of Object.keys(data)) {
    if (key !== 'readPaths' && key !== 'writePaths') throw configError(file, key, data[key], 'unknown field');
  }
  const readPaths = stringList(data.readPaths, file, 'readPaths') ?? [];
  const writePaths = stringList(data.writePaths, file, 'writePaths') ?? [];
  const base: PolicyDraft = {
    dialect: 'folderguard',
    source: file,
    mode: 'tiered',
    rejectTraversal: true,
    relativeTo: 'workspace',
    hideWriteTools: true,
  };
  if (readPaths.length === 0 && writePaths.length === 0) {
    // "Empty arrays disable folder guard." Traversal is still rejected: that check is not the guard's.
    return {
      ...base,
      rules: [],
      default: defaultSpec('allow'),
      unknownTools: 'allow',
      disabled: true,
      extras: { readPaths, writePaths },
    };
  }
  const rules: PolicyRule[] = [];
  const add = (list: string[], field: string, access: 'read' | 'write') =>
    list.forEach((p, i) => {
      noTraversal(p, file, `${field}[${i}]`);
      rules.push({
        pattern: rootPattern(p, ctx.env, file, `${field}[${i}]`),
        access,
        source: `folderguard:${file}#${field}[${i}]`,
      });
    });
  add(writePaths, 'writePaths', 'write');
  add(readPaths, 'readPaths', 'read');
  // "Downloads/ folder always accessible" — the workspace's own Downloads/, and only for reading when
  // nothing is writable ("no write operations when writePaths is empty").
  rules.push({
    pattern: '<workspace>/Downloads/**',
    access: writePaths.length > 0 ? 'write' : 'read',
    description: "Downloads/ is always accessible (Folder Guard's special exception)",
    source: `folderguard:${file}#Downloads`,
  });
  return { ...base, rules, default: defaultSpec('deny'), extras: { readPaths, writePaths } };
}
