/**
 * What a GNU sed script does beyond its input and stdout: the files `r`/`R` read, the files `w`/`W` and the
 * `w` flag of `s///` write, the commands `e` runs. The grammar is GNU sed 4.9's (checked against
 * `sed --debug`, which prints the program it parsed): a filename or command runs to the end of the line
 * (`w out;p` writes a file named `out;p`), labels end at `;`, a bracket expression in a regex may hold the
 * delimiter (`s/[/]/x/`), `-e` fragments are joined with newlines. Anything this reader does not understand
 * is reported as a problem — the caller makes the call uncertain, never guesses.
 */
export interface SedEffects {
  /** Files read by `r`/`R` (as written: sed does no tilde or variable expansion). */
  reads: string[];
  /** Files written by `w`/`W` and `s///w` (opened — and truncated — when sed starts). */
  writes: string[];
  /** Shell commands run by `e COMMAND`. */
  commands: string[];
  /** Something runs code we cannot see (`e` alone, `s///e` runs the pattern space), or the script is not understood. */
  problem?: string;
}

// GNU sed treats these names as its own streams, not files (sed/compile.c get_openfile).
const STREAMS = new Set(['/dev/stdout', '/dev/stderr', '/dev/stdin']);

const NO_ARG = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F']);

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  get c(): string {
    return this.s[this.i] ?? '';
  }
  eof(): boolean {
    return this.i >= this.s.length;
  }
  skipBlanks(): void {
    while (this.c === ' ' || this.c === '\t') this.i++;
  }
  /** The rest of the line (filenames, `e` commands, labels end here), without the newline. */
  toEol(stopAtSemicolon = false): string {
    const start = this.i;
    while (!this.eof() && this.c !== '\n' && !(stopAtSemicolon && this.c === ';')) this.i++;
    return this.s.slice(start, this.i);
  }
}

/** Skips a regex up to its closing delimiter; bracket expressions may contain the delimiter. */
function skipRegex(r: Reader, delim: string): boolean {
  while (!r.eof()) {
    const c = r.c;
    if (c === '\n') return false;
    if (c === '\\') {
      r.i += 2;
      continue;
    }
    if (c === delim) {
      r.i++;
      return true;
    }
    if (c === '[') {
      r.i++;
      if (r.c === '^') r.i++;
      if (r.c === ']') r.i++;
      while (!r.eof() && r.c !== ']') {
        if (r.c === '\n') return false;
        // `[:alpha:]`, `[=a=]`, `[.a.]` inside a bracket expression end with their own `:]`.
        if (r.c === '[' && (r.s[r.i + 1] === ':' || r.s[r.i + 1] === '=' || r.s[r.i + 1] === '.')) {
          const end = r.s.indexOf(`${r.s[r.i + 1]}]`, r.i + 2);
          if (end === -1) return false;
          r.i = end + 2;
          continue;
        }
        r.i++;
      }
      if (r.eof()) return false;
      r.i++;
      continue;
    }
    r.i++;
  }
  return false;
}

/** Skips a replacement or `y` operand: backslash escapes anything, including the delimiter and newline. */
function skipText(r: Reader, delim: string): boolean {
  while (!r.eof()) {
    const c = r.c;
    if (c === '\\') {
      r.i += 2;
      continue;
    }
    if (c === '\n') return false;
    r.i++;
    if (c === delim) return true;
  }
  return false;
}

function skipDigits(r: Reader): boolean {
  const start = r.i;
  while (r.c >= '0' && r.c <= '9') r.i++;
  return r.i > start;
}

/** One address: `N`, `first~step`, `$`, `/re/`, `\cREc`, with `I`/`M` flags. Returns false if none. */
function address(r: Reader, second: boolean): boolean | 'bad' {
  const c = r.c;
  if (c >= '0' && c <= '9') {
    skipDigits(r);
    if (r.c === '~') {
      r.i++;
      skipDigits(r);
    }
    return true;
  }
  if (second && (c === '+' || c === '~')) {
    r.i++;
    return skipDigits(r) ? true : 'bad';
  }
  if (c === '$') {
    r.i++;
    return true;
  }
  if (c === '/' || c === '\\') {
    r.i++;
    const delim = c === '/' ? '/' : r.c;
    if (c === '\\') {
      if (delim === '' || delim === '\n' || delim === '\\') return 'bad';
      r.i++;
    }
    if (!skipRegex(r, delim)) return 'bad';
    while (r.c === 'I' || r.c === 'M') r.i++;
    return true;
  }
  return false;
}

/** Reads a GNU sed script and lists what it reads, writes and runs. */
export function sedScriptEffects(text: string): SedEffects {
  const out: SedEffects = { reads: [], writes: [], commands: [] };
  const r = new Reader(text);
  const fail = (why: string): SedEffects => ({ ...out, problem: why });
  const file = (list: string[], cmd: string): string | undefined => {
    r.skipBlanks();
    const name = r.toEol();
    if (name === '') return `${cmd} without a file name`;
    if (!STREAMS.has(name)) list.push(name);
    return undefined;
  };
  while (true) {
    while (r.c === ' ' || r.c === '\t' || r.c === '\n' || r.c === ';') r.i++;
    if (r.eof()) break;
    if (r.c === '#') {
      r.toEol();
      continue;
    }
    const a1 = address(r, false);
    if (a1 === 'bad') return fail('an address is not terminated');
    if (a1) {
      r.skipBlanks();
      if (r.c === ',') {
        r.i++;
        r.skipBlanks();
        const a2 = address(r, true);
        if (a2 !== true) return fail('a second address is not understood');
      }
    }
    r.skipBlanks();
    while (r.c === '!') {
      r.i++;
      r.skipBlanks();
    }
    const cmd = r.c;
    r.i++;
    if (cmd === '{' || cmd === '}') continue;
    if (NO_ARG.has(cmd)) {
      // these take no argument
    } else if (cmd === 'l' || cmd === 'L' || cmd === 'q' || cmd === 'Q') {
      r.skipBlanks();
      skipDigits(r);
    } else if (cmd === ':') {
      if (a1) return fail('a label with an address');
      r.skipBlanks();
      if (r.toEol(true).trim() === '') return fail('an empty label');
    } else if (cmd === 'b' || cmd === 't' || cmd === 'T') {
      r.toEol(true);
    } else if (cmd === 'v') {
      r.toEol(true);
    } else if (cmd === 'a' || cmd === 'i' || cmd === 'c') {
      // Text to the end of the line; a backslash continues it (`a\` + newline + text).
      while (!r.eof() && r.c !== '\n') r.i += r.c === '\\' ? 2 : 1;
    } else if (cmd === 'r' || cmd === 'R') {
      const bad = file(out.reads, cmd);
      if (bad) return fail(bad);
    } else if (cmd === 'w' || cmd === 'W') {
      const bad = file(out.writes, cmd);
      if (bad) return fail(bad);
    } else if (cmd === 'e') {
      r.skipBlanks();
      const command = r.toEol();
      if (command.trim() === '') return fail('`e` runs the pattern space as a command');
      out.commands.push(command);
    } else if (cmd === 's' || cmd === 'y') {
      const delim = r.c;
      if (delim === '' || delim === '\n' || delim === '\\') return fail(`${cmd} with a bad delimiter`);
      r.i++;
      const first = cmd === 's' ? skipRegex(r, delim) : skipText(r, delim);
      if (!first || !skipText(r, delim)) return fail(`an unterminated ${cmd} command`);
      if (cmd === 's') {
        while (/[gpiImM0-9e]/.test(r.c) && !r.eof()) {
          if (r.c === 'e') return fail('`s///e` runs the pattern space as a command');
          r.i++;
        }
        if (r.c === 'w') {
          r.i++;
          const bad = file(out.writes, 's///w');
          if (bad) return fail(bad);
        }
      }
    } else {
      return fail(`sed command ${JSON.stringify(cmd)} is not understood`);
    }
    r.skipBlanks();
    if (!r.eof() && r.c !== '\n' && r.c !== ';' && r.c !== '}' && r.c !== '#')
      return fail('extra characters after a sed command');
  }
  return out;
}
