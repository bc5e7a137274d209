import { readdirSync } from 'node:fs';
import { SandboxCompileError } from './sandboxError.js';

/** Directory listings read while compiling one plan (a listing is read once, whatever asks for it). */
export type Listings = Map<string, readonly string[] | null>;

/** More spellings than this of one path: the sandbox refuses to start (a mask list cut short would unmask one). */
const MAX_VARIANTS = 64;

/**
 * Every existing path that equals `path` ignoring case, `path` itself included when it exists: `~/.ssh` ⇒
 * `~/.ssh`, `~/.SSH`, `~/.Ssh` where they exist. A deny rule matches case-insensitively (on macOS and Windows
 * `~/.SSH` is `~/.ssh`), so the static check denies every spelling; the sandbox masks every spelling that
 * exists, so both layers answer alike on a case-sensitive filesystem too. One listing per directory on the way
 * (cached in `listings`): `/home/u/.ssh` costs the listings of `/`, `/home` and `/home/u`.
 *
 * @example
 * ```ts
 * caseVariants('/home/u/.ssh', new Map()); // ['/home/u/.ssh', '/home/u/.SSH']
 * ```
 */
export function caseVariants(path: string, listings: Listings): string[] {
  let current = ['/'];
  for (const part of path.split('/')) {
    if (part === '') continue;
    const want = part.toLowerCase();
    const next: string[] = [];
    for (const dir of current) {
      for (const name of listingOf(dir, listings)) {
        if (name.length !== part.length || name.toLowerCase() !== want) continue;
        next.push(dir === '/' ? `/${name}` : `${dir}/${name}`);
        if (next.length > MAX_VARIANTS)
          throw new SandboxCompileError(
            `more than ${MAX_VARIANTS} spellings (case variants) of ${path} exist: cannot mask them all`,
          );
      }
    }
    if (next.length === 0) return [];
    current = next;
  }
  return current;
}

function listingOf(dir: string, listings: Listings): readonly string[] {
  let names = listings.get(dir);
  if (names === undefined) {
    try {
      names = readdirSync(dir);
    } catch {
      names = null;
    }
    listings.set(dir, names);
  }
  return names ?? [];
}
