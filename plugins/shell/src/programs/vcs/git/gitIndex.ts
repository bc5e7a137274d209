/** What `.git/index` says is tracked: file paths, every directory holding one, and submodule roots. */
export interface TrackedSet {
  files: ReadonlySet<string>;
  dirs: ReadonlySet<string>;
  /** Gitlinks (mode 160000): git recurses into them, so everything beneath counts as tracked. */
  submodules: readonly string[];
}

const GITLINK = 0o160000;

/**
 * Parses the entries of a git index (versions 2, 3 and 4; `hashBytes` 20 for SHA-1, 32 for SHA-256).
 * Returns `null` for anything it does not recognise — callers then use no filter, which judges more, not less.
 */
export function parseIndex(buf: Buffer, hashBytes = 20): TrackedSet | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  const files = new Set<string>();
  const dirs = new Set<string>();
  const submodules: string[] = [];
  let off = 12;
  let prev = '';
  for (let n = 0; n < count; n++) {
    const start = off;
    // ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 bytes each), then the object name.
    if (off + 40 + hashBytes + 2 > buf.length) return null;
    const mode = buf.readUInt32BE(off + 24);
    off += 40 + hashBytes;
    const flags = buf.readUInt16BE(off);
    off += 2;
    if (flags & 0x4000) {
      if (version < 3) return null;
      off += 2;
    }
    let name: string;
    if (version === 4) {
      // Prefix compression: a varint of bytes to drop from the previous name, then the NUL-terminated rest.
      let strip = 0;
      let b: number;
      do {
        if (off >= buf.length) return null;
        b = buf[off++]!;
        strip = (strip << 7) | (b & 0x7f);
        if (b & 0x80) strip += 1;
      } while (b & 0x80);
      const end = buf.indexOf(0, off);
      if (end < 0 || strip > prev.length) return null;
      name = prev.slice(0, prev.length - strip) + buf.toString('utf8', off, end);
      off = end + 1;
    } else {
      const end = buf.indexOf(0, off);
      if (end < 0) return null;
      name = buf.toString('utf8', off, end);
      // Entries are NUL-padded to a multiple of 8 bytes, with at least one NUL.
      off = start + Math.ceil((end + 1 - start) / 8) * 8;
    }
    prev = name;
    if ((mode & 0o170000) === GITLINK) submodules.push(name);
    else files.add(name);
    for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) dirs.add(name.slice(0, i));
  }
  for (const s of submodules) dirs.add(s);
  return { files, dirs, submodules };
}

/** Whether `rel` (relative to the worktree root) is tracked, or a directory holding tracked files. */
export function isTracked(t: TrackedSet, rel: string, isDir: boolean): boolean {
  if (isDir ? t.dirs.has(rel) : t.files.has(rel)) return true;
  return t.submodules.some((s) => rel === s || rel.startsWith(`${s}/`));
}
