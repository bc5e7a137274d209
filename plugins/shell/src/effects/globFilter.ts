import type { SubtreeFilter } from '@toolgate/core';
import { Minimatch } from 'minimatch';

/** Shell options that change what a glob matches (`shopt -s dotglob`, `nocaseglob`; `GLOBIGNORE` set). */
export interface GlobOptions {
  dot: boolean;
  nocase: boolean;
}

/**
 * A glob is judged as a subtree of its static directory, but the program only meets what the glob matches:
 * `head *.md` reads `README.md`, never `.env`. This filter keeps, beneath that directory, the entries the
 * pattern matches — and everything inside a matched directory (`rm -r build*`) — and directories that could
 * still hold a match (`src/*\/x.ts`). Bash's defaults: `*` does not match a leading dot (unless dotglob),
 * matching is case-sensitive (unless nocaseglob). `**` is treated as globstar, which matches more than bash
 * does without it: more entries judged, never fewer.
 */
export function globFilter(pattern: string, options: GlobOptions): SubtreeFilter {
  const mm = new Minimatch(pattern, {
    dot: options.dot,
    nocase: options.nocase,
    nonegate: true,
    nocomment: true,
  });
  return {
    name: `glob ${pattern}`,
    skips(rel: string, isDir: boolean): boolean {
      // Inside an entry the glob matched: the program gets that entry, and a recursive one all of it.
      let end = rel.indexOf('/');
      while (end !== -1) {
        if (mm.match(rel.slice(0, end))) return false;
        end = rel.indexOf('/', end + 1);
      }
      if (mm.match(rel)) return false;
      return !(isDir && mm.match(rel, true));
    },
  };
}

/**
 * Devices that are no file: writing `/dev/null` or reading `/dev/zero` touches nothing a policy protects, and
 * `/dev/stdout`, `/dev/fd/1`… are the command's own streams. `2>/dev/null` is in half of what agents run;
 * judging it as a write outside the workspace was a false deny. Other devices (`/dev/sda`) stay accesses.
 */
export const STREAM_DEVICES: ReadonlySet<string> = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/full',
  '/dev/random',
  '/dev/urandom',
  '/dev/tty',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/fd/0',
  '/dev/fd/1',
  '/dev/fd/2',
]);
