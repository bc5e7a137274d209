import type { CompiledPolicy } from './types.js';

/**
 * Seed 000's configuration log line for a Folder Guard policy: "🔒 Folder guard enabled - Read paths:
 * [/path/to/learnings], Write paths: [/path/to/execution]" or "🔓 Folder guard disabled (empty read/write
 * paths)". Undefined for other dialects.
 *
 * @example
 * ```ts
 * const line = folderGuardStatus(loadPolicy({ dialect: 'folderguard', file: 'fg.json' }));
 * if (line) console.error(line);
 * ```
 */
export function folderGuardStatus(policy: CompiledPolicy): string | undefined {
  if (policy.dialect !== 'folderguard') return undefined;
  if (policy.disabled) return '🔓 Folder guard disabled (empty read/write paths)';
  const list = (v: unknown) => (Array.isArray(v) ? v.join(' ') : '');
  // Go's %v of a []string: `[a b]`.
  return `🔒 Folder guard enabled - Read paths: [${list(policy.extras.readPaths)}], Write paths: [${list(policy.extras.writePaths)}]`;
}
