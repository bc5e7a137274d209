import { resolve } from 'node:path';
import { chainHash, GENESIS, splitChained } from './chain.js';
import { MAX_LINE_BYTES, readLines } from './readRecords.js';
import { trailFiles } from './trailFiles.js';

export interface BrokenLink {
  file: string;
  line: number;
  reason: string;
}

export interface ChainReport {
  ok: boolean;
  /** Records checked. */
  records: number;
  files: string[];
  /** False when the oldest kept record follows records rotated away (its `prev` cannot be checked). */
  fromGenesis: boolean;
  /** The first link that does not hold. */
  broken?: BrokenLink;
  /**
   * The newest file ends with part of a record and no newline: a writer killed inside its write(2). The
   * record was never acknowledged (a call's record counts once its write returned whole), so nothing recorded
   * is missing; the next writer cuts it off. Reported, not counted as a break.
   */
  tornTail?: BrokenLink;
}

/**
 * Verifies the hash chain of a trail, oldest rotated file to the current one, streaming. An edited record
 * breaks its own hash; a removed, inserted or reordered record breaks the next record's `prev`.
 *
 * @example
 * ```ts
 * const report = await verifyChain('/var/log/toolgate/violations.log');
 * if (!report.ok) console.error(`broken at ${report.broken.file}:${report.broken.line}: ${report.broken.reason}`);
 * ```
 */
export async function verifyChain(file: string): Promise<ChainReport> {
  const files = trailFiles(resolve(file));
  let prev: string | undefined;
  let records = 0;
  let fromGenesis = true;
  let tornTail: BrokenLink | undefined;
  for (const f of files) {
    for await (const { line, text, oversize, unterminated } of readLines(f)) {
      const broken = (reason: string): ChainReport => ({
        ok: false,
        records,
        files,
        fromGenesis,
        broken: { file: f, line, reason },
      });
      if (oversize !== undefined)
        return broken(
          `the line is ${oversize} bytes long, over the ${MAX_LINE_BYTES}-byte limit of a record (foreign or corrupt data); it was skipped, not read`,
        );
      const link = splitChained(text);
      if (!link && unterminated && f === files.at(-1)) {
        tornTail = {
          file: f,
          line,
          reason: 'the last record was cut short by a crash mid-write (never acknowledged)',
        };
        continue;
      }
      if (!link) return broken('the record carries no chain fields (torn, foreign or edited line)');
      if (chainHash(link.prev, link.content) !== link.hash)
        return broken('the record does not match its hash (edited)');
      if (prev === undefined) fromGenesis = link.prev === GENESIS;
      else if (link.prev !== prev)
        return broken(
          'the record does not follow the previous one (a record was removed, inserted or reordered)',
        );
      prev = link.hash;
      records++;
    }
  }
  return { ok: true, records, files, fromGenesis, ...(tornTail ? { tornTail } : {}) };
}
