import type { ArgSpec } from '../../argv.js';

/**
 * Builds a complete option table from a compact string, so the per-subcommand tables read like git's own
 * `-h` output: `'qvF:m:S? file= message= gpg-sign? quiet'`. The first word holds the short options (`X:`
 * takes an argument, `X?` takes an optional attached one, `X` none; `-` when there are none); then long
 * options (`name=` takes an argument, `name?` an optional `=value`, `name` none). git's parse-options
 * accepts `--no-NAME` for each long option, so those are added.
 */
export function optionSpec(text: string): ArgSpec {
  const [shorts = '', ...longs] = text.trim().split(/\s+/);
  let short = '';
  let shortFlags = '';
  let optionalShort = '';
  for (let i = 0; i < shorts.length; i++) {
    const c = shorts[i]!;
    if (c === '-') continue;
    const next = shorts[i + 1];
    if (next === ':') {
      short += c;
      i++;
    } else if (next === '?') {
      optionalShort += c;
      i++;
    } else shortFlags += c;
  }
  const long: string[] = [];
  const flags: string[] = [];
  for (const l of longs) {
    if (l.endsWith('=')) long.push(l.slice(0, -1));
    else flags.push(l.endsWith('?') ? l.slice(0, -1) : l);
  }
  for (const l of [...long, ...flags]) if (!l.startsWith('no-')) flags.push(`no-${l}`);
  return { short, shortFlags, optionalShort, long, flags };
}
