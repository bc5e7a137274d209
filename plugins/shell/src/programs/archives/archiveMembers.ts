import { lazyBuiltin } from '@toolgate/core';

// Only a .tgz read needs zlib (and the stream modules it loads): not every hook call that analyses a command.
const zlib = lazyBuiltin<typeof import('node:zlib')>('node:zlib');

import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

/**
 * The member names an archive holds, read at check time so that extracting it is judged by the names it
 * creates (`tar xzf a.tgz -C /tmp/out` beside a `**\/.env` rule) instead of the worst case of everything
 * that could be created. `links`: a symlink or hard link among the members — what is extracted after it may
 * land through it, so the caller keeps the worst case. `unknown`: the names cannot be read with certainty.
 */
export type Members = { names: string[]; links: boolean } | { unknown: string };

/** Archives larger than this (compressed) are not read at check time. */
export const MAX_ARCHIVE_BYTES = 16 * 1024 * 1024;
/** Decompressed bound: a gzip bomb costs nothing beyond it. */
const MAX_UNPACKED = 64 * 1024 * 1024;
/** More members than this are judged by the worst case (each is an access to resolve). */
export const MAX_MEMBERS = 2000;

const cstr = (b: Buffer, at: number, len: number): string => {
  const end = b.indexOf(0, at);
  return b.toString('utf8', at, end === -1 || end > at + len ? at + len : end);
};

function octal(b: Buffer, at: number, len: number): number | null {
  // Base-256 (a set high bit) is for sizes over 8 GiB: beyond every bound here.
  if ((b[at]! & 0x80) !== 0) return null;
  const s = cstr(b, at, len).trim();
  if (s === '') return 0;
  return /^[0-7]+$/.test(s) ? Number.parseInt(s, 8) : null;
}

/** `len key=value\n` records of a pax extended header. */
function paxRecords(b: Buffer): Map<string, string> | null {
  const out = new Map<string, string>();
  let at = 0;
  while (at < b.length) {
    const sp = b.indexOf(0x20, at);
    if (sp === -1) return null;
    const len = Number.parseInt(b.toString('latin1', at, sp), 10);
    if (!Number.isFinite(len) || len <= sp - at || at + len > b.length) return null;
    const rec = b.toString('utf8', sp + 1, at + len - 1);
    const eq = rec.indexOf('=');
    if (eq === -1) return null;
    out.set(rec.slice(0, eq), rec.slice(eq + 1));
    at += len;
  }
  return out;
}

/**
 * tar (v7, ustar, GNU and pax headers), plain or gzip-compressed — GNU tar detects the compression itself on
 * extraction, whatever `-z`/`-j` says. bzip2, xz and zstd are not read here (unknown).
 */
export function tarMembers(raw: Buffer): Members {
  let b = raw;
  if (raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      b = zlib().gunzipSync(raw, { maxOutputLength: MAX_UNPACKED });
    } catch {
      return { unknown: 'the archive cannot be decompressed within bounds' };
    }
  } else if (raw.subarray(0, 3).toString('latin1') === 'BZh')
    return { unknown: 'bzip2 archives are not read' };
  else if (raw[0] === 0xfd && raw.subarray(1, 6).toString('latin1') === '7zXZ\0')
    return { unknown: 'xz archives are not read' };
  else if (raw.readUInt32LE(0) === 0xfd2fb528) return { unknown: 'zstd archives are not read' };
  const names: string[] = [];
  let links = false;
  let longName: string | undefined;
  let pax: Map<string, string> | undefined;
  for (let at = 0; at + 512 <= b.length; ) {
    const h = b.subarray(at, at + 512);
    if (h.every((x) => x === 0)) return { names, links };
    // The header checksum: bytes summed with the checksum field as spaces.
    let sum = 0;
    for (let k = 0; k < 512; k++) sum += k >= 148 && k < 156 ? 0x20 : h[k]!;
    if (octal(h, 148, 8) !== sum) return { unknown: 'not a tar archive (a header checksum does not match)' };
    const size = octal(h, 124, 12);
    if (size === null) return { unknown: 'a member size cannot be read' };
    const type = String.fromCharCode(h[156]!);
    const data = b.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (data.length < size) return { unknown: 'the archive is truncated' };
    if (type === 'L') {
      longName = cstr(data, 0, data.length);
      continue;
    }
    if (type === 'K') continue; // a long link target: the entry itself is a link, flagged below
    if (type === 'x') {
      const rec = paxRecords(data);
      if (rec === null) return { unknown: 'a pax header cannot be read' };
      pax = rec;
      continue;
    }
    if (type === 'g') {
      const rec = paxRecords(data);
      if (rec === null || rec.has('path')) return { unknown: 'a global pax header renames members' };
      continue;
    }
    if (!['0', '\0', '7', '1', '2', '5', '3', '4', '6', 'S'].includes(type))
      return { unknown: `a member of type ${JSON.stringify(type)} is not read` };
    let name = cstr(h, 0, 100);
    if (cstr(h, 257, 6).startsWith('ustar')) {
      const prefix = cstr(h, 345, 155);
      if (prefix !== '') name = `${prefix}/${name}`;
    }
    name = pax?.get('path') ?? longName ?? name;
    longName = undefined;
    pax = undefined;
    if (type === '1' || type === '2') links = true;
    names.push(name);
    if (names.length > MAX_MEMBERS) return { unknown: `more than ${MAX_MEMBERS} members` };
  }
  // No end-of-archive blocks: GNU tar reads what is there (and warns); the names are those.
  return { names, links };
}

/** zip: the central directory at the end of the file (unzip extracts what it lists). Zip64 is not read. */
export function zipMembers(b: Buffer): Members {
  let eocd = -1;
  for (let at = b.length - 22; at >= Math.max(0, b.length - 22 - 0xffff); at--) {
    if (b.readUInt32LE(at) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd === -1) return { unknown: 'not a zip archive (no end of central directory)' };
  const total = b.readUInt16LE(eocd + 10);
  const cd = b.readUInt32LE(eocd + 16);
  if (total === 0xffff || cd === 0xffffffff) return { unknown: 'zip64 archives are not read' };
  if (total > MAX_MEMBERS) return { unknown: `more than ${MAX_MEMBERS} members` };
  const names: string[] = [];
  let links = false;
  let at = cd;
  for (let k = 0; k < total; k++) {
    if (at + 46 > b.length || b.readUInt32LE(at) !== 0x02014b50)
      return { unknown: 'the central directory cannot be read' };
    const flags = b.readUInt16LE(at + 8);
    const nameLen = b.readUInt16LE(at + 28);
    const skip = nameLen + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
    if (at + 46 + nameLen > b.length) return { unknown: 'the central directory is truncated' };
    // Made on Unix (3): the high half of the external attributes is the mode; 0o120000 is a symlink.
    if (b[at + 5] === 3 && ((b.readUInt32LE(at + 38) >>> 16) & 0o170000) === 0o120000) links = true;
    names.push(b.toString(flags & 0x800 ? 'utf8' : 'latin1', at + 46, at + 46 + nameLen));
    at += 46 + skip;
  }
  return { names, links };
}

/**
 * Where a member lands relative to the extraction directory, as GNU tar and unzip place it: leading `/` and
 * `./` removed, `strip` leading components dropped (`--strip-components`; `null` when it has no more), or
 * `undefined` when the name is not one we place with certainty (a `..` component, a backslash, a NUL).
 */
export function memberPath(name: string, strip = 0): string | null | undefined {
  if (/[\\\0]/.test(name)) return undefined;
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return undefined;
  if (parts.length <= strip) return null;
  return parts.slice(strip).join('/');
}

/**
 * Extraction of `archive` into `into`: a write of each path its members create (and the directories on the
 * way), read from the archive at check time. The worst case — every name beneath `into`, the directory
 * tainted — when the names cannot be known (stdin, an archive this line writes first, too large, a format
 * not read, a `..` or a link among the members). An archive that does not exist extracts nothing — the
 * program fails before it writes —: judged by what exists beneath the target, never by every possible name.
 */
export function extractMembers(
  cx: CommandContext,
  archive: Field | undefined,
  into: Field,
  how: {
    read(bytes: Buffer): Members;
    place(name: string): string | null | undefined;
    what: string;
    /** Why the names cannot be known whatever the archive holds (`--transform` renames them). */
    unknown?: string;
    /** Whether a member (by its stored name) is extracted: member operands and exclusions (`-x`, `--exclude`). */
    keep?(name: string): boolean;
  },
): void {
  const worst = (why: string) => {
    cx.write(into, {
      scope: 'subtree',
      tag: 'extract',
      unknownNames: `${how.what} creates the names its archive holds (${why})`,
    });
    cx.taint(into);
  };
  if (how.unknown !== undefined) {
    worst(how.unknown);
    return;
  }
  if (archive === undefined || archive.value === '-') {
    worst('read from stdin');
    return;
  }
  const r = cx.readBytes(archive, MAX_ARCHIVE_BYTES);
  if ('uncertain' in r) {
    if (
      !/written by this command line/.test(r.uncertain) &&
      archive.uncertain === undefined &&
      archive.glob < 0 &&
      !archive.under &&
      !cx.exists(archive)
    ) {
      // Judged as a write over what exists beneath the target now: extracting into a directory the policy
      // keeps read-only or that holds a denied file is refused whatever the archive (what an archive made
      // between the check and the run brings is the OS sandbox's part).
      cx.write(into, { scope: 'subtree', tag: 'extract' });
      return;
    }
    worst(r.uncertain);
    return;
  }
  const m = how.read(r.bytes);
  if ('unknown' in m) {
    worst(m.unknown);
    return;
  }
  if (m.links) {
    worst('a link among the members may lead what follows it elsewhere');
    return;
  }
  const paths = new Set<string>();
  for (const name of m.names) {
    if (how.keep && !how.keep(name)) continue;
    const p = how.place(name);
    if (p === undefined) {
      worst(`the member ${JSON.stringify(name)} is not placed with certainty`);
      return;
    }
    if (p === null) continue;
    const parts = p.split('/');
    for (let k = 1; k <= parts.length; k++) paths.add(parts.slice(0, k).join('/'));
  }
  // The directory itself: unzip -d creates it, a `./` member sets its mode and times.
  cx.write(into, { tag: 'extract' });
  // A symlink already at a member's path is replaced, not written through (strace, GNU tar 1.34 with and
  // without --overwrite: open O_EXCL or O_NOFOLLOW fails, unlinkat, create; unzip 6.0 -o: lstat, unlink,
  // create): the link itself is judged there. A link on the way to it (`d` of `d/x`) is still followed.
  for (const p of paths)
    cx.write(
      { ...into, value: `${into.value.replace(/\/+$/, '')}/${p}`, glob: -1 },
      { tag: 'extract', followFinal: false },
    );
}
