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
  for (const f of files) {
    for await (const { line, text, oversize } of readLines(f)) {
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
  return { ok: true, records, files, fromGenesis };
}
