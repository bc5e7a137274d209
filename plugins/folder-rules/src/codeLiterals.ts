/**
 * What a piece of Python-like code (Hermes `code_execution`) says about the paths it touches: its string
 * literals, every one a candidate path, and — when the code could reach a path no literal names — why not.
 * Deliberately conservative: the code is "static" only when every string is a plain literal, no call takes
 * a computed argument, and nothing runs other code or changes directory. Anything else is `dynamic`.
 */
export interface CodeScan {
  /** Every plain string literal, plus each `/…` or `~…` word inside a literal ("cat /etc/x"). */
  literals: string[];
  /** Present when the code can build or reach paths that no literal names. */
  dynamic?: string;
}

const MAX_CODE = 100_000;

// Names that run other code, reach the environment, change directory or assemble strings at run time:
// their presence makes the literals an incomplete account of the paths (seed 003: fail closed on what
// cannot be audited).
const DYNAMIC_NAMES = new Set(
  (
    'eval exec compile __import__ importlib getattr setattr delattr globals locals vars chdir fchdir environ ' +
    'getenv putenv system popen subprocess spawn spawnl spawnv spawnlp spawnvp execl execle execlp execv execve ' +
    'execvp execvpe fork pty ctypes cffi pickle marshal shelve base64 codecs binascii bytes bytearray chr ord ' +
    'input stdin argv fromhex decode encode join format format_map replace translate expanduser expandvars ' +
    'walk glob iglob rglob scandir listdir fdopen dup dup2 socket urllib requests http ftplib memoryview'
  ).split(' '),
);
const CONSTANTS = new Set(['True', 'False', 'None']);
const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
  '\n': '',
};

type Token =
  | { kind: 'str'; value: string }
  | { kind: 'name'; value: string }
  | { kind: 'op'; value: string }
  | { kind: 'num' };

/** Reads one string literal at `i` (after its prefix); returns its value and end, or a reason it is not plain. */
function readString(
  code: string,
  i: number,
  prefix: string,
): { value: string; end: number } | { dynamic: string } {
  const p = prefix.toLowerCase();
  if (p.includes('f')) return { dynamic: 'an f-string builds a string at run time' };
  const raw = p.includes('r');
  const q = code[i]!;
  const triple = code.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  let value = '';
  while (j < code.length) {
    if (code.startsWith(close, j)) return { value, end: j + close.length };
    const c = code[j]!;
    if (!triple && c === '\n') return { dynamic: 'an unterminated string literal' };
    if (c === '\\') {
      const n = code[j + 1];
      if (n === undefined) break;
      if (raw) {
        value += c + n;
        j += 2;
        continue;
      }
      const simple = SIMPLE_ESCAPES[n];
      if (simple === undefined) return { dynamic: `an escape sequence \\${n} in a string literal` };
      value += simple;
      j += 2;
      continue;
    }
    value += c;
    j++;
  }
  return { dynamic: 'an unterminated string literal' };
}

function tokenize(code: string): Token[] | { dynamic: string } {
  const out: Token[] = [];
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (c === '#') {
      while (i < code.length && code[i] !== '\n') i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const prefix = /^([rRbBuUfF]{0,2})(['"])/.exec(code.slice(i, i + 3));
    if (prefix && (prefix[1] === '' || /^[a-zA-Z]+$/.test(prefix[1]!))) {
      const s = readString(code, i + prefix[1]!.length, prefix[1]!);
      if ('dynamic' in s) return s;
      out.push({ kind: 'str', value: s.value });
      i = s.end;
      continue;
    }
    const name = /^[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*/.exec(code.slice(i));
    if (name) {
      out.push({ kind: 'name', value: name[0] });
      i += name[0].length;
      continue;
    }
    const num = /^\d[\w.]*/.exec(code.slice(i));
    if (num) {
      out.push({ kind: 'num' });
      i += num[0].length;
      continue;
    }
    out.push({ kind: 'op', value: c });
    i++;
  }
  return out;
}

/** Words inside a literal that look like absolute or home paths (`"cat /etc/x"` ⇒ `/etc/x`). */
function embeddedPaths(value: string): string[] {
  return value
    .split(/[\s=:,;'"`()<>|&]+/)
    .filter((w) => w !== value && (w.startsWith('/') || w.startsWith('~')));
}

/**
 * Scans code for the paths it can touch.
 *
 * @example
 * ```ts
 * scanCode("open('/ws/out.txt', 'w').write('hi')"); // {literals: ['/ws/out.txt', 'w', 'hi']}
 * scanCode('open(p)'); // {literals: [], dynamic: 'a call argument that is not a literal: p'}
 * ```
 */
export function scanCode(code: string): CodeScan {
  if (code.length > MAX_CODE) return { literals: [], dynamic: `code longer than ${MAX_CODE} characters` };
  const tokens = tokenize(code);
  if (!Array.isArray(tokens)) return { literals: [], dynamic: tokens.dynamic };
  const literals: string[] = [];
  // Depth of call parentheses: `(` after a name, `)` or `]` opens a call; a bare `(` a group.
  const parens: boolean[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const prev = tokens[k - 1];
    const next = tokens[k + 1];
    if (t.kind === 'str') {
      // Strings glued together or combined by an operator are built at run time.
      // `/` too: pathlib joins with it (`Path('/ws') / '..' / 'etc'`).
      const glue = (x: Token | undefined) =>
        x?.kind === 'str' || (x?.kind === 'op' && ['+', '%', '*', '.', '/'].includes(x.value));
      if (glue(next) || (prev?.kind === 'op' && ['+', '%', '*', '/'].includes(prev.value)))
        return { literals, dynamic: 'a string built from parts at run time' };
      literals.push(t.value, ...embeddedPaths(t.value));
      continue;
    }
    if (t.kind === 'name') {
      if (DYNAMIC_NAMES.has(t.value) || t.value.startsWith('__'))
        return { literals, dynamic: `code uses ${t.value}, which can reach paths no literal names` };
      const inCall = parens.includes(true);
      const keyword = next?.kind === 'op' && next.value === '=' && tokens[k + 2]?.kind !== 'op';
      // Inside a call only a callee chain (`f.write(`, `os.remove(`) may be a name: a value (`open(p)`,
      // `open(cfg.path)`) is computed.
      const callee = next?.kind === 'op' && (next.value === '(' || next.value === '.');
      if (inCall && !keyword && !callee && !CONSTANTS.has(t.value))
        return { literals, dynamic: `a call argument that is not a literal: ${t.value}` };
      continue;
    }
    if (t.kind === 'op') {
      if (t.value === '(')
        parens.push(
          prev !== undefined &&
            (prev.kind === 'name' || (prev.kind === 'op' && (prev.value === ')' || prev.value === ']'))),
        );
      else if (t.value === ')') parens.pop();
    }
  }
  return { literals };
}
