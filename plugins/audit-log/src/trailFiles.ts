import { readdirSync, renameSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The files of one trail, oldest first: `violations.log.5` … `violations.log.1`, then `violations.log`
 * (seed 001's naming; `.N.gz` when rotated files are compressed). Rotated files are found by listing the
 * directory, so a changed `keep` still finds them. When both `.N` and `.N.gz` exist (a compression was
 * interrupted after it completed), the complete `.gz` is the one listed.
 */
export function trailFiles(file: string): string[] {
  const dir = dirname(file);
  const base = basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const rotated = new Map<number, string>();
  let current = false;
  for (const name of names) {
    if (name === base) current = true;
    else if (name.startsWith(`${base}.`)) {
      const m = /^([1-9][0-9]*)(\.gz)?$/.exec(name.slice(base.length + 1));
      if (m && (m[2] || !rotated.has(Number(m[1])))) rotated.set(Number(m[1]), join(dir, name));
    }
  }
  const out = [...rotated].sort((a, b) => b[0] - a[0]).map(([, path]) => path);
  if (current) out.push(file);
  return out;
}

export function ignoreMissing(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Indices of the rotated files that exist, each with its names (`.N`, `.N.gz`), from one listing. */
function rotatedIndices(file: string): Map<number, string[]> {
  const dir = dirname(file);
  const base = basename(file);
  const out = new Map<number, string[]>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const m = /^([1-9][0-9]*)(\.gz)?$/.exec(name.slice(base.length + 1));
    if (!m) continue;
    const n = Number(m[1]);
    const list = out.get(n) ?? [];
    list.push(m[2] ? '.gz' : '');
    out.set(n, list);
  }
  return out;
}

/**
 * Shifts `file` → `file.1` → … → `file.keep` (each also as `.gz`); the oldest is deleted first, in both forms,
 * so there are never more than `keep` rotated files. `keep: 0` just deletes the current file. Only files that
 * exist are touched (one directory listing): with a large `keep` a rotation used to try `2 × keep` renames,
 * and with several writers on one trail it held the lock for seconds.
 */
export function shiftFiles(file: string, keep: number): void {
  if (keep === 0) {
    ignoreMissing(() => unlinkSync(file));
    return;
  }
  const present = rotatedIndices(file);
  const indices = [...present.keys()].sort((a, b) => b - a);
  for (const i of indices) {
    for (const suffix of present.get(i) ?? []) {
      if (i >= keep) ignoreMissing(() => unlinkSync(`${file}.${i}${suffix}`));
      else ignoreMissing(() => renameSync(`${file}.${i}${suffix}`, `${file}.${i + 1}${suffix}`));
    }
  }
  ignoreMissing(() => renameSync(file, `${file}.1`));
}
