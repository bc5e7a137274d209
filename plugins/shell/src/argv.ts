import type { Field } from './expandWord.js';

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
      opts.push({ name: `-${c}` });
    }
  }
  return { opts, operands, strays };
}

export function has(p: ParsedArgs, ...names: string[]): boolean {
  return p.opts.some((o) => names.includes(o.name));
}

export function values(p: ParsedArgs, ...names: string[]): Field[] {
  const out: Field[] = [];
  for (const o of p.opts) if (o.value && names.includes(o.name)) out.push(o.value);
  return out;
}
