import type { PatchFile, PatchTargets } from './patchTypes.js';

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const GIT = /^diff --git (.+)$/;
const GIT_META =
  /^(?:old mode|new mode|deleted file mode|new file mode|similarity index|dissimilarity index|index|Binary files|GIT binary patch|literal|delta)\b/;
const MAX_FILES = 1000;

/** A header name: C-quoted (git's `"a/x\ty"`), its timestamp cut off (`x\t2024-01-01 …`). Null if undecodable. */
function headerName(raw: string): string | null {
  const text = raw.replace(/\r$/, '');
  if (text.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"/.exec(text);
    if (!m) return null;
    try {
      const bytes: number[] = [];
      const body = m[1]!;
      for (let i = 0; i < body.length; i++) {
        const c = body[i]!;
        if (c !== '\\') {
          bytes.push(...Buffer.from(c, 'utf8'));
          continue;
        }
        const n = body[++i];
        const oct = /^[0-7]{3}/.exec(body.slice(i));
        if (oct) {
          bytes.push(Number.parseInt(oct[0], 8));
          i += 2;
        } else if (n === 'n') bytes.push(10);
        else if (n === 't') bytes.push(9);
        else if (n === '"' || n === '\\') bytes.push(n.charCodeAt(0));
        else return null;
      }
      return Buffer.from(bytes).toString('utf8');
    } catch {
      return null;
    }
  }
  return text.split('\t')[0]!.replace(/\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d.*$/, '');
}

/** Both names of `diff --git a/x b/y` when they can be split with certainty (same length or quoted). */
function gitNames(rest: string): [string, string] | null {
  if (rest.startsWith('"')) {
    const m = /^("(?:[^"\\]|\\.)*") (.+)$/.exec(rest);
    const a = m ? headerName(m[1]!) : null;
    const b = m ? headerName(m[2]!) : null;
    return a !== null && b !== null ? [a, b] : null;
  }
  // Unquoted names may hold spaces: the split is the one where both sides name the same file (`a/P b/P`),
  // as git itself decides; a rename says its names in `rename from/to` lines.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ') {
    const a = rest.slice(0, half);
    const b = rest.slice(half + 1);
    if (a.replace(/^[^/]*\//, '') === b.replace(/^[^/]*\//, '')) return [a, b];
  }
  const parts = rest.split(' ');
  return parts.length === 2 ? [parts[0]!, parts[1]!] : null;
}

/**
 * Reads a unified diff (`--- a/x`, `+++ b/x`, `@@ -l,n +l,n @@`), with git's extended headers
 * (`diff --git`, `new file mode`, `deleted file mode`, `rename from/to`, `copy from/to`, quoted names) and
 * `/dev/null` for a created or deleted side. Hunks are counted line by line, so a removed line that reads
 * `--- x` is content, not a header. Text before the first header is ignored as git and patch ignore it.
 * Names are as written (`a/x`): the caller strips the `a/` `b/` prefixes.
 */
export function parseUnifiedDiff(text: string): PatchTargets {
  const lines = text.split('\n');
  const files: PatchFile[] = [];
  const add = (path: string, action: PatchFile['action']) => {
    if (path !== '/dev/null') files.push({ path, action });
  };
  let headers = 0;
  let i = 0;
  let inGit = false;
  while (i < lines.length) {
    const line = lines[i]!.replace(/\r$/, '');
    const git = GIT.exec(line);
    if (git) {
      const names = gitNames(git[1]!);
      if (names === null) return { ok: false, reason: `line ${i + 1}: cannot read the names of ${line}` };
      add(names[0], 'update');
      add(names[1], 'update');
      headers++;
      inGit = true;
      i++;
      continue;
    }
    const meta = /^(rename|copy) (from|to) (.+)$/.exec(line);
    if (meta) {
      const name = headerName(meta[3]!);
      if (name === null) return { ok: false, reason: `line ${i + 1}: cannot read the name in ${line}` };
      add(
        name,
        meta[1] === 'copy'
          ? meta[2] === 'from'
            ? 'copy-from'
            : 'add'
          : meta[2] === 'from'
            ? 'move-from'
            : 'move-to',
      );
      i++;
      continue;
    }
    if (/^(?:new|deleted) file mode 120000|^(?:old|new) mode 120000/.test(line))
      return { ok: false, reason: `line ${i + 1}: the patch creates or changes a symlink` };
    if (inGit && GIT_META.test(line)) {
      i++;
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const from = headerName(line.slice(4));
      const to = headerName(lines[i + 1]!.slice(4));
      if (from === null || to === null)
        return { ok: false, reason: `line ${i + 1}: cannot read the file names of a header` };
      if (to === '/dev/null') add(from, 'delete');
      else if (from === '/dev/null') add(to, 'add');
      else {
        add(from, 'update');
        add(to, 'update');
      }
      headers++;
      i += 2;
      // One or more hunks, each exactly as long as its header says.
      let hunks = 0;
      while (i < lines.length && HUNK.test(lines[i]!)) {
        const h = HUNK.exec(lines[i]!)!;
        let old = h[2] === undefined ? 1 : Number(h[2]);
        let nu = h[4] === undefined ? 1 : Number(h[4]);
        i++;
        while (old > 0 || nu > 0) {
          const body = lines[i];
          if (body === undefined) return { ok: false, reason: 'a hunk ends before its counted lines' };
          const b = body.replace(/\r$/, '');
          if (b.startsWith('\\')) {
            i++;
            continue;
          }
          const c = b === '' ? ' ' : b[0];
          if (c === ' ') {
            old--;
            nu--;
          } else if (c === '-') old--;
          else if (c === '+') nu--;
          else return { ok: false, reason: `line ${i + 1}: not a hunk line: ${JSON.stringify(b)}` };
          if (old < 0 || nu < 0) return { ok: false, reason: `line ${i + 1}: a hunk longer than its header` };
          i++;
        }
        while (lines[i]?.startsWith('\\')) i++;
        hunks++;
      }
      if (hunks === 0 && !inGit) return { ok: false, reason: `line ${i}: a file header without a hunk` };
      inGit = false;
      if (files.length > MAX_FILES) return { ok: false, reason: `more than ${MAX_FILES} files` };
      continue;
    }
    if (HUNK.test(line)) return { ok: false, reason: `line ${i + 1}: a hunk without a file header` };
    // `+++ x` or `--- x` not in a pair, outside any hunk: a header we cannot read is no header we can trust.
    if (headers > 0 && /^(?:\+\+\+|---) /.test(line))
      return { ok: false, reason: `line ${i + 1}: an unpaired file header` };
    i++;
  }
  if (headers === 0) return { ok: false, reason: 'no unified diff header (--- / +++ / diff --git)' };
  return { ok: true, format: 'unified', files };
}
