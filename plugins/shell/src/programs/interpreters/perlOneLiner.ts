/**
 * Whether perl `-e` code is one of the plain one-liner shapes that reads only its input and writes only
 * stdout (`s/a/b/g`, `tr/a-z/A-Z/`, `print if /x/`, `$c++ }{ print $c`, `print $F[0]`). Perl runs code in
 * more places than any scanner can list — backticks, `qx`, `system`, `open`, `do FILE`, `require`, `/e`
 * substitutions, `(?{ })` in a regex, `@{[ ]}` and `${\ }` inside any interpolated string — so this is an
 * allowlist: quote-like constructs are checked and removed, then every remaining word must be a known
 * harmless builtin. Returns why the code is not plain, or `undefined`.
 */
export function perlCodeProblem(code: string): string | undefined {
  let rest = '';
  let i = 0;
  const close: Record<string, string> = { '{': '}', '(': ')', '[': ']', '<': '>' };
  /** Reads one delimited part starting at `i` (on the opening delimiter); returns its text. */
  const part = (open: string): string | undefined => {
    const end = close[open] ?? open;
    let depth = 0;
    let j = i + 1;
    for (; j < code.length; j++) {
      const c = code[j]!;
      if (c === '\\') j++;
      else if (c === open && end !== open) depth++;
      else if (c === end) {
        if (depth === 0) break;
        depth--;
      }
    }
    if (j >= code.length) return undefined;
    const text = code.slice(i + 1, j);
    i = j + 1;
    return text;
  };
  // Inside interpolated text and regexes: `@{[ ]}`, `${\ }`, `(?{ })`, `(??{ })`, `->` method calls run code.
  const CODE_IN_TEXT = /[$@]\s*\{|\(\?\??\{|\(\*\{|->|\\N\{/;
  while (i < code.length) {
    const c = code[i]!;
    const prev = rest.trimEnd().at(-1) ?? '';
    const word = /^(s|tr|y|m|qr|q|qq|qw|qx)\b(?=\s*[^\w\s,;=)])/.exec(code.slice(i));
    const atWordStart = i === 0 || !/[\w$@%&]/.test(code[i - 1]!);
    if (word && atWordStart) {
      const kind = word[1]!;
      i += kind.length;
      while (/\s/.test(code[i] ?? '')) i++;
      const open = code[i]!;
      if (open === '#' && kind !== 'q') return 'a quote-like construct delimited by #';
      const first = part(open);
      if (first === undefined) return `an unterminated ${kind}`;
      let second = '';
      if (kind === 's' || kind === 'tr' || kind === 'y') {
        if (close[open]) {
          while (/\s/.test(code[i] ?? '')) i++;
          i--;
          const o2 = code[i + 1]!;
          i++;
          const s2 = part(o2);
          if (s2 === undefined) return `an unterminated ${kind}`;
          second = s2;
        } else {
          i--;
          const s2 = part(open);
          if (s2 === undefined) return `an unterminated ${kind}`;
          second = s2;
        }
      }
      const flags = /^[a-z]*/.exec(code.slice(i))![0];
      i += flags.length;
      if (kind === 's' && flags.includes('e')) return 's///e evaluates its replacement as code';
      if (kind !== 'q' && kind !== 'qw' && CODE_IN_TEXT.test(first + second))
        return `code inside a ${kind} construct`;
      if (kind === 'qx') return 'qx runs a command';
      rest += ' Q ';
      continue;
    }
    const prevWord = /(?<![$@%\w])([A-Za-z_]\w*)\s*$/.exec(rest)?.[1];
    if (c === '/' && (!/[\w)\]}$]/.test(prev) || (prevWord !== undefined && REGEX_AFTER.has(prevWord)))) {
      const re = part('/');
      if (re === undefined) return 'an unterminated regex';
      if (CODE_IN_TEXT.test(re)) return 'code inside a regex';
      i += /^[a-z]*/.exec(code.slice(i))![0].length;
      rest += ' Q ';
      continue;
    }
    if (c === '"' || c === "'") {
      const s = part(c);
      if (s === undefined) return 'an unterminated string';
      if (c === '"' && CODE_IN_TEXT.test(s)) return 'code inside an interpolated string';
      rest += ' Q ';
      continue;
    }
    if (c === '`') return 'backticks run a command';
    if (c === '#') {
      while (i < code.length && code[i] !== '\n') i++;
      continue;
    }
    rest += c;
    i++;
  }
  if (/<<|<[^\s<>=]*>/.test(rest.replace(/<(STDIN)?>/g, ''))) return 'a heredoc, readline or glob';
  if (/->|(?<!&)&(?!&)\s*[\w{$]|(?<![\w)\]}$]\s*)\*[A-Za-z_]|[$@%]\s*\{|\$\^|@ARGV|\$ARGV\s*\[/.test(rest))
    return 'a construct that may run code';
  // File tests (`-e $_`) stat paths that come from the input.
  if (/(^|[\s(!,;])-[a-zA-Z]\s*[$Q(]/.test(rest)) return 'a file test';
  for (const w of rest.match(/(?<![$@%\w])[A-Za-z_]\w*(?:::\w+)*/g) ?? []) {
    if (!PLAIN_WORDS.has(w)) return `perl word ${w} is not known to be harmless`;
  }
  return undefined;
}

// After these words a `/` starts a regex, not a division.
const REGEX_AFTER = new Set(
  'if unless and or not xor split grep map return while until print x lt gt le ge eq ne cmp push unshift join'.split(
    ' ',
  ),
);

// Builtins and keywords that neither touch files nor run code (checked against perlfunc).
const PLAIN_WORDS = new Set(
  `print printf say if unless elsif else and or not xor next last redo while until for foreach my our
   chomp chop chr ord lc uc lcfirst ucfirst length substr index rindex sprintf join split reverse sort keys
   values each exists delete defined undef scalar abs int hex oct sqrt sin cos atan2 exp log rand srand push
   pop shift unshift splice grep map wantarray lt gt le ge eq ne cmp x eof BEGIN END STDOUT STDERR Q quotemeta
   pos local sum sum0 max min first uniq`.split(/\s+/),
);
