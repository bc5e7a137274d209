import { sha256hex } from './sha256.js';

/** The `prev` of the first record of a trail. */
export const GENESIS = '0'.repeat(64);

// The chain fields are always the last two of a line, so a record's hashed content is the line without them:
// verification works on the bytes as written, never on a re-serialisation.
const SUFFIX = /,"prev":"([0-9a-f]{64})","hash":"([0-9a-f]{64})"\}$/;

export function chainHash(prev: string, content: string): string {
  return sha256hex(`${prev}\n${content}`);
}

/** Appends `prev` and `hash` to one serialised record (`{…}` without the newline). */
export function chainLine(content: string, prev: string): { line: string; hash: string } {
  const hash = chainHash(prev, content);
  return { line: `${content.slice(0, -1)},"prev":"${prev}","hash":"${hash}"}`, hash };
}

export interface ChainedLine {
  content: string;
  prev: string;
  hash: string;
}

/** Splits a written line into its hashed content and its chain fields; `undefined` when it carries none. */
export function splitChained(line: string): ChainedLine | undefined {
  const m = SUFFIX.exec(line);
  if (!m) return undefined;
  return { content: `${line.slice(0, m.index)}}`, prev: m[1]!, hash: m[2]! };
}
