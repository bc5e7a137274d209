import { lex } from './lex.js';
import { ShellParseError } from './parseError.js';

const QUICK = /[$`<]|\beval\b|\bsource\b|(^|[\s;&|(])\.\s/;

/**
 * The constructs seed 003 says a plain tokenizer cannot audit: `$(…)`, backticks, `<(…)`/`>(…)`, `<<<`,
 * `eval`, `source` and `.`. Quoted text is data (`echo '$(x)'` contains none); the result lists each kind
 * once, in the order found. Unparseable text reports `unparseable`.
 *
 * @example
 * ```ts
 * // findMetacharacters is exported by the package (not imported here: a comment that reads as an import
 * // of the package index draws a false circle in import-graph tools).
 * findMetacharacters("cat <<< x; echo $(id) '$(quoted)'"); // ['<<<', '$(']
 * ```
 */
export function findMetacharacters(command: string): string[] {
  if (typeof command !== 'string') return ['unparseable'];
  if (!QUICK.test(command)) return [];
  const found: string[] = [];
  const add = (m: string) => {
    if (!found.includes(m)) found.push(m);
  };
  let tokens: ReturnType<typeof lex>['tokens'];
  try {
    tokens = lex(command).tokens;
  } catch (err) {
    if (err instanceof ShellParseError) return ['unparseable'];
    throw err;
  }
  let cmdPos = true;
  for (const t of tokens) {
    if (t.k === 'op') {
      cmdPos = true;
      continue;
    }
    if (t.k === 'r') {
      if (t.op === '<<<') add('<<<');
      continue;
    }
    if (t.k === 'arith') {
      scanWord(command.slice(t.s, t.e), add);
      continue;
    }
    const text = command.slice(t.s, t.e);
    if (cmdPos && (text === 'eval' || text === 'source' || text === '.')) add(text);
    if (
      cmdPos &&
      !/^[A-Za-z_][A-Za-z0-9_]*=/.test(text) &&
      !['sudo', 'env', 'command', 'builtin', 'exec', 'nohup', 'time', '!'].includes(text)
    )
      cmdPos = false;
    scanWord(text, add);
  }
  return found;
}

/** Finds substitutions in a word's text, skipping single-quoted parts. */
function scanWord(text: string, add: (m: string) => void): void {
  let dq = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === "'" && !dq) {
      const j = text.indexOf("'", i + 1);
      i = j === -1 ? text.length : j;
      continue;
    }
    if (c === '"') dq = !dq;
    else if (c === '`') add('`');
    else if (c === '$' && text[i + 1] === '(') add('$(');
    else if ((c === '<' || c === '>') && text[i + 1] === '(' && !dq) add(`${c}(`);
  }
}
