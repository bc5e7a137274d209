import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { readBinaryBounded } from './readBinaryBounded.js';

/**
 * Whether a stash entry carries untracked files (`git stash -u`/`-a` records them as a third parent of the
 * stash commit; git-stash(1) "DISCUSSION"): `apply`/`pop` then recreate files whose names only the stash
 * knows (a stashed `.env`). `true`/`false`, or a reason it cannot be told (the commit is packed, the entry
 * is not found): the caller is uncertain then.
 */
export function stashHasUntracked(
  commonDir: string,
  which: string | undefined,
): boolean | { uncertain: string } {
  const m = /^(?:stash@\{(\d+)\}|(\d+))?$/.exec(which ?? '');
  if (!m) return { uncertain: `stash entry ${which} is not one we can look up` };
  const n = Number(m[1] ?? m[2] ?? 0);
  let sha: string | undefined;
  if (n === 0) sha = readBinaryBounded(`${commonDir}/refs/stash`, 128)?.toString('utf8').trim();
  else {
    // The stash reflog lists entries oldest first; stash@{n} is the n-th from the end.
    const log = readBinaryBounded(`${commonDir}/logs/refs/stash`, 4 * 1024 * 1024);
    const lines =
      log
        ?.toString('utf8')
        .split('\n')
        .filter((l) => l !== '') ?? [];
    sha = lines[lines.length - 1 - n]?.split(' ')[1];
  }
  // No stash at all: `git stash pop` fails ("No stash entries found") and recreates nothing. A stash made
  // earlier on the same line holds only what that push judged (its worktree write).
  if (n === 0 && sha === undefined) return false;
  if (!sha || !/^[0-9a-f]{40}$/.test(sha)) return { uncertain: `stash@{${n}} is not found` };
  let raw: Buffer;
  try {
    raw = inflateSync(readFileSync(`${commonDir}/objects/${sha.slice(0, 2)}/${sha.slice(2)}`));
  } catch {
    return { uncertain: `the stash commit ${sha.slice(0, 12)} is packed: its parents are not read` };
  }
  const text = raw.toString('utf8', 0, Math.min(raw.length, 4096));
  const header = text.slice(0, text.indexOf('\n\n'));
  const parents = header.split('\n').filter((l) => l.startsWith('parent ')).length;
  return parents >= 3;
}
