/** One syscall line of a per-process strace log (`strace -ff -y`), its arguments split at the top level. */
export interface SyscallLine {
  name: string;
  args: string[];
  /** The raw return text after `= ` (`0`, `3</real/path>`, `-1 ENOENT (…)`, `?`). */
  ret: string;
}

const LINE = /^([a-z_0-9]+)\((.*)\)\s+=\s+(.*)$/;

/**
 * Parses one line of `strace -ff -y -qq` output. Signal (`---`), exit (`+++`) and unfinished lines give
 * `null`: they carry no completed file operation.
 */
export function parseStraceLine(line: string): SyscallLine | null {
  const m = LINE.exec(line);
  if (!m) return null;
  const [, name = '', argText = '', ret = ''] = m;
  return { name, args: splitArgs(argText), ret: ret.trim() };
}

/**
 * Splits an argument list at commas outside strings, brackets and `-y` fd annotations (`3</a,b>`), so a
 * comma inside a quoted path or a flags struct never starts a new argument.
 */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let inAngle = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (inAngle) {
      if (c === '>') inAngle = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '<' && i > 0 && /[0-9A-Z_]/.test(text[i - 1] ?? '')) inAngle = true;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last !== '' || out.length > 0) out.push(last);
  return out;
}

/** The decoded value of a quoted string argument (C escapes as strace prints them), or `null` if not a string. */
export function stringArg(arg: string | undefined): string | null {
  if (arg === undefined || !arg.startsWith('"')) return null;
  const end = arg.lastIndexOf('"');
  const body = arg.slice(1, end);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const n = body[++i] ?? '';
    const simple: Record<string, number> = {
      n: 10,
      t: 9,
      r: 13,
      v: 11,
      f: 12,
      a: 7,
      b: 8,
      '"': 34,
      '\\': 92,
    };
    if (n in simple) bytes.push(simple[n] ?? 0);
    else if (n === 'x') {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(n)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i))?.[0] ?? n;
      bytes.push(Number.parseInt(oct, 8));
      i += oct.length - 1;
    } else bytes.push(...Buffer.from(n, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path `-y` prints for a file descriptor argument or result (`3</a/b>`, `AT_FDCWD</ws>`), or `null`. */
export function fdPath(arg: string | undefined): string | null {
  const m = arg === undefined ? null : /^(?:-?\d+|AT_FDCWD)<(.*)>/.exec(arg);
  return m ? (m[1] ?? null) : null;
}
