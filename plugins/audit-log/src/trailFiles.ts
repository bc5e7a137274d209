import { readdirSync, renameSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The files of one trail, oldest first: `violations.log.5` … `violations.log.1`, then `violations.log`
 * (seed 001's naming). Rotated files are found by listing the directory, so a changed `keep` still finds them.
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
  const rotated: Array<[number, string]> = [];
  let current = false;
  for (const name of names) {
    if (name === base) current = true;
    else if (name.startsWith(`${base}.`)) {
      const n = name.slice(base.length + 1);
      if (/^[1-9][0-9]*$/.test(n)) rotated.push([Number(n), join(dir, name)]);
    }
  }
  rotated.sort((a, b) => b[0] - a[0]);
  const out = rotated.map(([, path]) => path);
  if (current) out.push(file);
  return out;
}

function ignoreMissing(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Shifts `file` → `file.1` → … → `file.keep`; the oldest is overwritten (deleted). `keep: 0` just deletes. */
export function shiftFiles(file: string, keep: number): void {
  if (keep === 0) {
    ignoreMissing(() => unlinkSync(file));
    return;
  }
  for (let i = keep - 1; i >= 1; i--) {
    ignoreMissing(() => renameSync(`${file}.${i}`, `${file}.${i + 1}`));
  }
  ignoreMissing(() => renameSync(file, `${file}.1`));
}
