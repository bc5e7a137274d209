import { createReadStream, createWriteStream, openSync, renameSync, statSync, unlinkSync } from 'node:fs';
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

  constructor(
    private readonly file: string,
    private readonly keep: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** True while a compression is queued or running. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Queues every plain rotated file (after a restart, or right after a rotation: `.1`). */
  schedule(): void {
    for (let i = 1; i <= this.keep; i++) {
      let ino: number;
      try {
        ino = statSync(`${this.file}.${i}`).ino;
      } catch {
        continue;
      }
      this.pending++;
      this.chain = this.chain
        .then(() => this.compress(ino))
        .catch((error: unknown) => this.onError(error))
        .finally(() => {
          this.pending--;
        });
    }
  }

  /** The current name of the rotated file with this inode, if it is still kept. */
  private find(ino: number): string | undefined {
    for (let i = 1; i <= this.keep; i++) {
      const name = `${this.file}.${i}`;
      try {
        if (statSync(name).ino === ino) return name;
      } catch {
        /* not there */
      }
    }
    return undefined;
  }

  private async compress(ino: number): Promise<void> {
    const source = this.find(ino);
    if (!source) return;
    const tmp = `${this.file}.gz-${ino}.tmp`;
    // Opened now, by name, while we know the name is right; later shifts rename it but the fd stays valid.
    const fd = openSync(source, 'r');
    try {
      await pipeline(createReadStream('', { fd }), createGzip(), createWriteStream(tmp, { mode: 0o600 }));
    } catch (error) {
      ignoreMissing(() => unlinkSync(tmp));
      throw error;
    }
    const now = this.find(ino); // synchronous from here on: no rotation can interleave
    if (!now) {
      ignoreMissing(() => unlinkSync(tmp));
      return;
    }
    renameSync(tmp, `${now}.gz`);
    ignoreMissing(() => unlinkSync(now));
  }
}
