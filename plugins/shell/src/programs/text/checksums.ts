import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, parseArgs } from '../argv.js';
import { literal, simple, unknownOptions } from '../spec.js';
import * as C from './checksumOptions.js';

/** More names than this in one list is not an everyday check: the call is uncertain instead of slow. */
const MAX_NAMES = 1000;

/**
 * The file names a checksum list names, as coreutils writes and reads them: `HASH  NAME` (text), `HASH *NAME`
 * (binary), `ALGO (NAME) = HASH` (`--tag`), a leading `\` when the name holds `\n` or `\\`. `null` when a
 * line is none of these: the program would skip it with a warning, but we cannot be sure what it means.
 */
export function checksumNames(text: string): string[] | null {
  const names: string[] = [];
  for (const raw of text.split('\n')) {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const escaped = line.startsWith('\\');
    if (escaped) line = line.slice(1);
    let name: string;
    const tagged = /^[A-Z0-9a-z-]+ \((.*)\) = [0-9a-fA-F]+$/.exec(line);
    const plain = /^[0-9a-fA-F]+ [ *](.*)$/.exec(line);
    if (tagged) name = tagged[1]!;
    else if (plain) name = plain[1]!;
    else return null;
    if (escaped) {
      if (/\\[^n\\]/.test(name)) return null;
      name = name.replace(/\\(n|\\)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
    }
    if (name === '') return null;
    names.push(name);
    if (names.length > MAX_NAMES) return null;
  }
  return names;
}

/** One checksum list: read it, and judge every file it names as a read (relative to the cwd, as the program does). */
function checkList(cx: CommandContext, list: Field): void {
  cx.read(list, { tag: 'check-list' });
  if (list.value === '-') {
    cx.uncertain(`${cx.name} -c reads its list from stdin`, 'read');
    return;
  }
  const content = cx.readContent(list);
  if ('uncertain' in content) {
    cx.uncertain(`${cx.name} -c ${list.raw}: ${content.uncertain}`, 'read');
    return;
  }
  const names = checksumNames(content.text);
  if (names === null) {
    cx.uncertain(`${cx.name} -c ${list.raw}: a line we cannot read as a checksum line`, 'read');
    return;
  }
  for (const n of names) {
    if (n === '-') cx.uncertain(`${cx.name} -c: the list names stdin`, 'read');
    else cx.read(literal(n), { tag: 'checked' });
  }
}

/** md5sum, sha*sum, b2sum, cksum, shasum: operands are read; with `-c` they are lists of files to read. */
function checksum(spec: ArgSpec): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, spec);
    unknownOptions(cx, p);
    if (!has(p, '-c', '--check')) {
      for (const f of p.operands) cx.read(f);
      return;
    }
    if (p.operands.length === 0) cx.uncertain(`${cx.name} -c reads its list from stdin`, 'read');
    for (const f of p.operands) checkList(cx, f);
  };
}

export const checksums: Record<string, CommandHandler> = {
  md5sum: checksum(C.MD5SUM),
  sha1sum: checksum(C.SHA1SUM),
  sha224sum: checksum(C.SHA224SUM),
  sha256sum: checksum(C.SHA256SUM),
  sha384sum: checksum(C.SHA384SUM),
  sha512sum: checksum(C.SHA512SUM),
  b2sum: checksum(C.B2SUM),
  cksum: checksum(C.CKSUM),
  sum: checksum(C.SUM),
  shasum: checksum(C.SHASUM),
  // BSD md5 (`-s STRING` hashes the string).
  md5: simple({ short: 's' }),
};
