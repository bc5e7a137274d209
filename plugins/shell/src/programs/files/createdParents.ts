import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

/**
 * The ancestors `mkdir -p` / `install -D` create for `f`: from the nearest one up to the first that exists
 * at check time (strace: `mkdir -p out/a/b` makes out and out/a too). Existing ancestors are not written
 * (their mkdir fails with EEXIST), so `mkdir -p ~/proj/x` is not a write of `~`.
 */
export function createdParents(cx: CommandContext, f: Field, tag: string): void {
  if (f.uncertain !== undefined || f.under || f.pipe || f.glob >= 0) return;
  const parts = f.value.replace(/\/+$/, '').split('/');
  for (let k = parts.length - 1; k > 0; k--) {
    const value = parts.slice(0, k).join('/');
    if (value === '' || value === '.' || value === '..' || value.endsWith('/..') || value.endsWith('/.'))
      return;
    const parent: Field = { ...f, value };
    if (cx.exists(parent)) return;
    cx.write(parent, { tag });
  }
}

/**
 * `shred -u` renames the file through names of zeros of falling length in its directory before unlinking
 * it (`00000`, `0000`, … `0`: strace shows each renameat2), so each of those names is written too.
 */
export function shredNames(cx: CommandContext, f: Field): void {
  if (f.uncertain !== undefined || f.under || f.pipe || f.glob >= 0) return;
  const slash = f.value.lastIndexOf('/');
  const dir = slash === -1 ? '' : f.value.slice(0, slash + 1);
  const base = f.value.slice(slash + 1);
  for (let n = base.length; n > 0; n--)
    cx.write({ ...f, value: `${dir}${'0'.repeat(n)}` }, { tag: 'shred -u' });
}
