import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

/**
 * The file name a download takes from its URL: the last segment of the path (curl -O, wget without -O).
 * `undefined` when it is not plain enough to know it for certain: not a literal, a query or fragment
 * (wget keeps it in the name), percent-escapes or URL globs (decoded or expanded differently by versions),
 * or no segment at all (`index` of `fallback`, wget's `index.html`, when given).
 */
export function urlFileName(u: Field, fallback?: string): string | undefined {
  if (u.uncertain !== undefined || u.under || u.pipe) return undefined;
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?[^/?#]*(\/[^?#]*)?$/i.exec(u.value);
  if (!m) return undefined;
  const path = m[1] ?? '';
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === '') return fallback;
  if (name === '.' || name === '..' || /[%[\]{}\\]/.test(name)) return undefined;
  return name;
}

/**
 * The file a download without clobbering writes: `name` when it does not exist, else the first free
 * `name.N` (wget's default, curl's --no-clobber) — read from what exists now.
 */
export function freeName(cx: CommandContext, dir: Field, name: string): Field {
  const at = (n: string): Field => ({ ...dir, value: `${dir.value.replace(/\/+$/, '')}/${n}`, glob: -1 });
  let f = at(name);
  for (let k = 1; k < 1000 && cx.exists(f); k++) f = at(`${name}.${k}`);
  return f;
}
