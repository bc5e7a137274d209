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

/**
 * Shifts `file` → `file.1` → … → `file.keep` (each also as `.gz`); the oldest is deleted first, in both forms,
 * so there are never more than `keep` rotated files. `keep: 0` just deletes the current file.
 */
export function shiftFiles(file: string, keep: number): void {
  if (keep === 0) {
    ignoreMissing(() => unlinkSync(file));
    return;
  }
  ignoreMissing(() => unlinkSync(`${file}.${keep}`));
  ignoreMissing(() => unlinkSync(`${file}.${keep}.gz`));
  for (let i = keep - 1; i >= 1; i--) {
    ignoreMissing(() => renameSync(`${file}.${i}`, `${file}.${i + 1}`));
    ignoreMissing(() => renameSync(`${file}.${i}.gz`, `${file}.${i + 1}.gz`));
  }
  ignoreMissing(() => renameSync(file, `${file}.1`));
}
