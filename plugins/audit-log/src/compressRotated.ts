import {
  closeSync,
  createReadStream,
  createWriteStream,
  fstatSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ignoreMissing } from './trailFiles.js';

/**
 * Gzips rotated files one at a time, off the decision path. A job follows its file by inode, because the
 * file may be shifted (`.1` → `.2`) by further rotations while it is being compressed; the `.gz` is written
 * under a temporary name and renamed into place only when complete, then the plain file is removed.
 */
export class RotatedCompressor {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  /** Inodes queued or being compressed: a rotation schedules only what is new (the backlog stays bounded). */
  private readonly queued = new Set<number>();

  constructor(
    private readonly file: string,
    private readonly onError: (error: unknown) => void,
    /** Runs its argument holding the trail's lock: another process's rotation must not move files meanwhile. */
    private readonly exclusive: (fn: () => void) => void = (fn) => fn(),
  ) {}

  /** True while a compression is queued or running. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Compressions queued or running: at most the number of plain rotated files, however often scheduled. */
  get backlog(): number {
    return this.pending;
  }

  /** Queues every plain rotated file not queued yet (after a restart, or right after a rotation: `.1`). */
  schedule(): void {
    for (const [, name] of plainRotated(this.file)) {
      let ino: number;
      try {
        ino = statSync(name).ino;
      } catch {
        continue;
      }
      if (this.queued.has(ino)) continue;
      this.queued.add(ino);
      this.pending++;
      this.chain = this.chain
        .then(() => this.compress(ino))
        .catch((error: unknown) => this.onError(error))
        .finally(() => {
          this.pending--;
          this.queued.delete(ino);
        });
    }
  }

  /** The current name of the rotated file with this inode, if it is still kept (one listing, not `keep` stats). */
  private find(ino: number): string | undefined {
    for (const [, name] of plainRotated(this.file)) {
      try {
        if (statSync(name).ino === ino) return name;
      } catch {
        /* not there */
      }
    }
    return undefined;
  }

  /**
   * Opens the rotated file with this inode. Another process may rotate between finding its name and opening
   * it (`.5` is then another file): the fd's inode is checked, so the fd is the file we meant, whatever its
   * name is later. Without the check a file was compressed under another's name and one was lost.
   */
  private openInode(ino: number): number | undefined {
    for (let attempt = 0; attempt < 5; attempt++) {
      const source = this.find(ino);
      if (!source) return undefined;
      let fd: number;
      try {
        fd = openSync(source, 'r');
      } catch {
        continue;
      }
      if (fstatSync(fd).ino === ino) return fd;
      closeSync(fd);
    }
    return undefined;
  }

  /** Compressions this compressor ran (a file another writer was already compressing is not counted). */
  compressed = 0;

  private async compress(ino: number): Promise<void> {
    // One writer per file: every writer of a trail schedules every rotated file it sees, and eight of them
    // gzipping each file eight times (each rename under the trail lock) kept them busy, and waiting for the
    // lock, for many seconds after their last record; under load a lock wait ran out (ELOCKED).
    const claim = claimJob(`${this.file}.gz-${ino}.tmp`);
    if (claim === undefined) return;
    const { tmp, out } = claim;
    const fd = this.openInode(ino);
    if (fd === undefined) {
      closeSync(out);
      ignoreMissing(() => unlinkSync(tmp));
      return;
    }
    this.compressed++;
    // The fd stays open until the rename: while it is open the inode number cannot be reused by a new file
    // (another writer may compress and unlink this one meanwhile), so `find(ino)` below finds this file or none.
    try {
      try {
        await pipeline(
          createReadStream('', { fd, autoClose: false, start: 0 }),
          createGzip(),
          createWriteStream(tmp, { fd: out }),
        );
      } catch (error) {
        ignoreMissing(() => unlinkSync(tmp));
        throw error;
      }
      // Under the lock: no rotation (of this process or another) can move the file between find and rename.
      this.exclusive(() => {
        const now = this.find(ino);
        if (!now) {
          ignoreMissing(() => unlinkSync(tmp));
          return;
        }
        renameSync(tmp, `${now}.gz`);
        ignoreMissing(() => unlinkSync(now));
      });
    } finally {
      closeSync(fd);
    }
  }
}

/** A claim older than this was left by a writer that died compressing (a file takes milliseconds). */
const CLAIM_STALE_MS = 60_000;

/**
 * Claims the compression of one rotated file for this process: its temporary `.gz` output, created with
 * O_EXCL under a name all writers share. Undefined when another writer holds it (or it cannot be created):
 * that writer compresses the file. A claim left by a writer that died is taken over once it is stale.
 */
function claimJob(tmp: string): { tmp: string; out: number } | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return { tmp, out: openSync(tmp, 'wx', 0o600) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    }
    try {
      if (Date.now() - statSync(tmp).mtimeMs < CLAIM_STALE_MS) return undefined;
      unlinkSync(tmp);
    } catch {
      /* finished meanwhile: try once more */
    }
  }
  return undefined;
}

/** Rotated files still plain (`.N` without a complete `.N.gz`), oldest first. */
function plainRotated(file: string): [number, string][] {
  const dir = dirname(file);
  const base = basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const plain = new Map<number, string>();
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const m = /^([1-9][0-9]*)(\.gz)?$/.exec(name.slice(base.length + 1));
    if (!m) continue;
    if (!m[2]) plain.set(Number(m[1]), join(dir, name));
  }
  // A plain file beside its complete `.gz` (interrupted between rename and unlink) is compressed again:
  // the same content, and the plain copy is removed.
  return [...plain].sort((a, b) => b[0] - a[0]);
}
