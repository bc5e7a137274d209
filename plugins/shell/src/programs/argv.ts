import type { Field } from '../state/expandWord.js';

/** How a command reads its options (GNU getopt_long conventions unless `posix`). */
export interface ArgSpec {
  /** Short options that take an argument, e.g. `'tS'` for `-t DIR`, `-tDIR`. */
  short?: string;
  /** Long options that take an argument (without `--`), e.g. `['target-directory']`. */
  long?: readonly string[];
  /** Long flags without an argument; listed so abbreviations (`--recur`) resolve as getopt does. */
  flags?: readonly string[];
  /** Options end at the first operand (POSIX tools, wrappers like `sudo cmd -r`). */
  posix?: boolean;
  /** Short options whose argument is optional and must be attached (`sed -i.bak`). */
  optionalShort?: string;
  /**
   * Short options without an argument. Giving it (even `''`) declares the table complete: every option the
   * program accepts is listed in `short`, `shortFlags`, `optionalShort`, `long` or `flags`, and any other
   * option is reported in `ParsedArgs.unknown` — an option we do not know may read, write or run code, so
   * handlers make it uncertain rather than skip it.
   */
  shortFlags?: string;
  /** `-NUM` is an option (`head -5`, `tail -20`, `xargs -0` is not this). */
  numeric?: boolean;
}

export interface Opt {
  /** `-t` or `--target-directory` (abbreviations resolved to the full name). */
  name: string;
  value?: Field;
}

export interface ParsedArgs {
  opts: Opt[];
  operands: Field[];
  /** Long options nobody declared, with a value: `--foo=/x`. */
  strays: Field[];
  /** Options a complete table (`shortFlags` given) does not know, as written (`-Z`, `--frobnicate`). */
  unknown: string[];
}

function withValue(f: Field, value: string, rawOffset: number): Field {
  const out: Field = { ...f, value, glob: f.glob >= rawOffset ? f.glob - rawOffset : -1 };
  if (f.tilde && !value.startsWith('~')) out.tilde = false;
  else if (!f.tilde && value.startsWith('~') && rawOffset > 0 && f.raw.includes('=~')) out.tilde = true;
  return out;
}

/** Resolves a long option name, allowing unique abbreviations as getopt_long does. */
function longName(name: string, spec: ArgSpec): { name: string; takes: boolean } | undefined {
  const longs = spec.long ?? [];
  const flags = spec.flags ?? [];
  if (longs.includes(name)) return { name, takes: true };
  if (flags.includes(name)) return { name, takes: false };
  const hits = [...longs.filter((l) => l.startsWith(name)), ...flags.filter((l) => l.startsWith(name))];
  if (hits.length === 1) return { name: hits[0]!, takes: longs.includes(hits[0]!) };
  return undefined;
}

/** Splits argv into options and operands (`-rf`, `-t DIR`, `-tDIR`, `--x=v`, `--x v`, `--`). */
export function parseArgs(args: readonly Field[], spec: ArgSpec): ParsedArgs {
  const opts: Opt[] = [];
  const operands: Field[] = [];
  const strays: Field[] = [];
  const shortArg = spec.short ?? '';
  const optional = spec.optionalShort ?? '';
  const complete = spec.shortFlags !== undefined;
  const shortFlags = spec.shortFlags ?? '';
  const unknown: string[] = [];
  let i = 0;
  let done = false;
  while (i < args.length) {
    const f = args[i]!;
    const v = f.value;
    i++;
    if (done || f.uncertain !== undefined || f.pipe || v === '-' || !v.startsWith('-') || v.length < 2) {
      operands.push(f);
      if (spec.posix) done = true;
      continue;
    }
    if (v === '--') {
      done = true;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const rawName = eq === -1 ? v.slice(2) : v.slice(2, eq);
      const known = longName(rawName, spec);
      if (!known) {
        if (complete) unknown.push(`--${rawName}`);
        if (eq !== -1) strays.push(withValue(f, v.slice(eq + 1), eq + 1));
        opts.push({ name: `--${rawName}` });
        continue;
      }
      const name = `--${known.name}`;
      if (!known.takes) opts.push({ name });
      else if (eq !== -1) opts.push({ name, value: withValue(f, v.slice(eq + 1), eq + 1) });
      else if (i < args.length) opts.push({ name, value: args[i++]! });
      else opts.push({ name });
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(v)) {
      opts.push({ name: '-NUM', value: withValue(f, v.slice(1), 1) });
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (shortArg.includes(c)) {
        if (k + 1 < v.length) opts.push({ name: `-${c}`, value: withValue(f, v.slice(k + 1), k + 1) });
        else if (i < args.length) opts.push({ name: `-${c}`, value: args[i++]! });
        else opts.push({ name: `-${c}` });
        break;
      }
      if (optional.includes(c)) {
        if (k + 1 < v.length) opts.push({ name: `-${c}`, value: withValue(f, v.slice(k + 1), k + 1) });
        else opts.push({ name: `-${c}` });
        break;
      }
      if (complete && !shortFlags.includes(c)) unknown.push(`-${c}`);
      opts.push({ name: `-${c}` });
    }
  }
  return { opts, operands, strays, unknown };
}

export function has(p: ParsedArgs, ...names: string[]): boolean {
  return p.opts.some((o) => names.includes(o.name));
}

export function values(p: ParsedArgs, ...names: string[]): Field[] {
  const out: Field[] = [];
  for (const o of p.opts) if (o.value && names.includes(o.name)) out.push(o.value);
  return out;
}
