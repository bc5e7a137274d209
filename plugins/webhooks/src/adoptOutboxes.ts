import { readdirSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Outbox files this process has open: never adopted by another instance of the plugin in the same process. */
const openHere = new Set<string>();
let instance = 0;

// `outbox.jsonl` (no owner: left by hand or by an older layout) or `outbox-<pid>-<tag>.jsonl`.
const OUTBOX_FILE = /^outbox(?:-(\d+)-([0-9a-z]+))?\.jsonl$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Every live plugin instance writes its own outbox file, named after its process, so concurrent processes
 * (hooks started per tool call, say) share a directory without contention. Files of owners that are gone
 * are claimed by an atomic rename (only one claimant can win it) and merged by the new owner.
 */
export function ownOutboxFile(dir: string): string {
  const file = join(dir, `outbox-${process.pid}-${(instance++).toString(36)}.jsonl`);
  openHere.add(file);
  return file;
}

export function releaseOutboxFile(file: string): void {
  openHere.delete(file);
}

/**
 * Claims the outbox files of dead owners (and ownerless ones) for `own`. Each claimed file is renamed to a
 * name owned by this process first, so a crash halfway through leaves it adoptable by the next start, never
 * lost. Returns the claimed paths, oldest name first; the caller merges them and then calls `dropClaimed`.
 */
export function claimOrphans(dir: string, own: string): string[] {
  const claimed: string[] = [];
  let k = 0;
  for (const name of readdirSync(dir).sort()) {
    const match = OUTBOX_FILE.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    if (path === own || openHere.has(path)) continue;
    const pid = match[1] === undefined ? undefined : Number(match[1]);
    if (pid !== undefined && pid !== process.pid && alive(pid)) continue;
    const target = own.replace(/\.jsonl$/, `a${(k++).toString(36)}.jsonl`);
    try {
      renameSync(path, target);
    } catch {
      continue; // another process claimed it first
    }
    openHere.add(target);
    claimed.push(target);
  }
  return claimed;
}

export function dropClaimed(files: readonly string[]): void {
  for (const file of files) {
    try {
      unlinkSync(file);
    } catch {
      /* already gone */
    }
    openHere.delete(file);
  }
}
