import { userHome } from './userHomes.js';

export interface ExpandContext {
  cwd: string;
  workspace: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

export interface ExpandOptions {
  /** Expand `~`, `~user`, `~+`, `~-` (default true). */
  tilde?: boolean;
  /** Expand `$VAR` and `${VAR}` (default true). */
  vars?: boolean;
}

export interface Expansion {
  value: string;
  certain: boolean;
  reason?: string;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

function lookup(name: string, ctx: ExpandContext): string | undefined {
  const value = ctx.env[name];
  if (value !== undefined) return value;
  if (name === 'HOME') return ctx.home;
  if (name === 'PWD') return ctx.cwd;
  return undefined;
}

/** Expands `<workspace>`, tilde forms and variables in a raw path; anything it cannot know makes it uncertain. */
export function expandPath(raw: string, ctx: ExpandContext, options: ExpandOptions = {}): Expansion {
  // Most paths hold nothing to expand (no `<workspace>`, `~` or `$`): answered without the machinery below.
  const first = raw.charCodeAt(0);
  if (first !== 60 /* < */ && first !== 126 /* ~ */ && (options.vars === false || !raw.includes('$')))
    return { value: raw, certain: true };
  let value = raw;
  let certain = true;
  let reason: string | undefined;
  const uncertain = (why: string) => {
    certain = false;
    reason ??= why;
  };

  if (value.startsWith('<workspace>') && (value.length === 11 || value[11] === '/')) {
    value = ctx.workspace + value.slice(11);
  } else if (options.tilde !== false && value.startsWith('~')) {
    const slash = value.indexOf('/');
    const word = slash === -1 ? value.slice(1) : value.slice(1, slash);
    const rest = slash === -1 ? '' : value.slice(slash);
    if (word === '') value = ctx.home + rest;
    else if (word === '+') value = ctx.cwd + rest;
    else if (word === '-') {
      const old = ctx.env.OLDPWD;
      if (old === undefined) uncertain('~- refers to OLDPWD, which is unset');
      value = (old ?? '/') + rest;
    } else {
      const home = /^[A-Za-z0-9._-]+$/.test(word) ? userHome(word) : undefined;
      if (home === undefined) uncertain(`unknown user in ~${word}`);
      value = (home ?? `/~${word}`) + rest;
    }
  }

  if (options.vars !== false && value.includes('$')) {
    let out = '';
    let i = 0;
    while (i < value.length) {
      const ch = value[i];
      if (ch !== '$') {
        out += ch;
        i++;
        continue;
      }
      const next = value[i + 1];
      if (next === '{') {
        const close = value.indexOf('}', i + 2);
        const inner = close === -1 ? '' : value.slice(i + 2, close);
        if (close !== -1 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(inner)) {
          const v = lookup(inner, ctx);
          if (v === undefined) uncertain(`variable \${${inner}} is not set`);
          out += v ?? '';
          i = close + 1;
        } else {
          uncertain(`cannot expand ${close === -1 ? value.slice(i) : value.slice(i, close + 1)}`);
          out += close === -1 ? value.slice(i) : value.slice(i, close + 1);
          i = close === -1 ? value.length : close + 1;
        }
        continue;
      }
      NAME.lastIndex = i + 1;
      const m = NAME.exec(value);
      if (m) {
        const v = lookup(m[0], ctx);
        if (v === undefined) uncertain(`variable $${m[0]} is not set`);
        out += v ?? '';
        i += 1 + m[0].length;
      } else if (next !== undefined && /[0-9@*#?$!(`-]/.test(next)) {
        // Positional and special parameters and command substitutions have no value we can know.
        uncertain(`cannot expand $${next}`);
        out += `$${next}`;
        i += 2;
      } else {
        out += '$';
        i++;
      }
    }
    value = out;
  }
  return reason === undefined ? { value, certain } : { value, certain, reason };
}
