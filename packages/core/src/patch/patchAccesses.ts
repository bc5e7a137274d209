import { createAccess, uncertainAccess } from '../createAccess.js';
import type { Access, CallContext } from '../types.js';
import { parsePatch } from './parsePatch.js';

export interface PatchAccessOptions {
  /** `folder-rules:args.input`, `shell:args.command`. */
  origin: string;
  /** The directory the patch is applied in; `null` when it cannot be known (relative names are uncertain). */
  cwd?: string | null;
  /** The patch is inside a shell script (see `parsePatch`). */
  embedded?: boolean;
  /** The script changes directory before applying it: relative names are uncertain. */
  cdBefore?: boolean;
}

/** `a/src/x` → `src/x`: the `-p1` form git and patch apply to prefixed unified-diff names. */
function stripFirst(name: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash <= 0 || slash === name.length - 1) return undefined;
  return name.slice(slash + 1);
}

/**
 * The accesses of applying a patch: every file it adds, updates or deletes and both ends of a move are
 * writes — a deleted file and a move's source as the entry itself (removing a link does not touch its
 * target), whose contents a move also reads; a copy's source is a read. A patch
 * that does not parse is one uncertain write: core denies it. Names join the cwd as written (Codex
 * expands no `~` and no variables); a unified diff's names count both as written and with their first
 * component (`a/`, `b/`) stripped, since the applier's `-p` is not known.
 *
 * @example
 * ```ts
 * import { patchAccesses } from '@toolgate/core';
 * patchAccesses('*** Begin Patch\n*** Add File: /etc/passwd\n+x\n*** End Patch', ctx, { origin: 'my:args.input' });
 * // one write access to /etc/passwd
 * ```
 */
export function patchAccesses(
  text: unknown,
  ctx: Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'>,
  options: PatchAccessOptions,
): Access[] {
  const { origin } = options;
  if (typeof text !== 'string')
    return [uncertainAccess(String(text), 'write', origin, 'the patch is not text')];
  const parsed = parsePatch(text, { embedded: options.embedded ?? false });
  if (!parsed.ok)
    return [uncertainAccess('apply_patch', 'write', origin, `the patch does not parse: ${parsed.reason}`)];
  const cwd = options.cwd === undefined ? ctx.cwd : options.cwd;
  const base = { ...ctx, cwd: cwd ?? ctx.cwd };
  const resolveOptions = { origin, tilde: false, vars: false } as const;
  const out: Access[] = [];
  for (const f of parsed.files) {
    const names = [f.path];
    const stripped = parsed.format === 'unified' ? stripFirst(f.path) : undefined;
    if (stripped !== undefined) names.push(stripped);
    for (const name of names) {
      const relative = !name.startsWith('/');
      if (name === '' || (relative && (cwd === null || options.cdBefore))) {
        out.push(
          uncertainAccess(name || '?', 'write', origin, 'the patch names a file whose location is unknown'),
        );
        continue;
      }
      // Deleting removes the entry itself (a link, not what it points at); a move reads the source's
      // contents through any link and removes the entry; everything else writes through links.
      if (f.action === 'delete' || f.action === 'move-from')
        out.push(createAccess(name, 'write', base, { ...resolveOptions, followFinal: false }));
      if (f.action !== 'delete')
        out.push(
          createAccess(
            name,
            f.action === 'copy-from' || f.action === 'move-from' ? 'read' : 'write',
            base,
            resolveOptions,
          ),
        );
    }
  }
  return out;
}
