import type { Lookup } from './expandWord.js';
import type { VarValue } from './shellState.js';

/** What an unquoted tilde prefix means in the shell's current state. */
export type TildeMeaning =
  /** Left to core's resolver: `~` of the call's own home, `~user`. */
  | { kind: 'core' }
  /** The prefix replaced: one path per possible value of the variable. */
  | { kind: 'values'; values: string[] }
  /** Not a tilde expansion after all (bash leaves `~+` literal when PWD is unset): a relative name. */
  | { kind: 'literal' }
  /** `~+` with no reassigned PWD: the tracked cwd, relative `./rest`. */
  | { kind: 'cwd'; rest: string }
  | { kind: 'uncertain'; reason: string };

const PREFIX = /^~([+-]?)(?=\/|$)/;

/**
 * bash expands `~` from `$HOME`, `~+` from `$PWD` and `~-` from `$OLDPWD` — the *variables*, whatever the
 * script assigned to them (`HOME=/etc; cat ~/passwd` reads /etc/passwd; `PWD=/root/.ssh; cat ~+/id_rsa`
 * reads /root/.ssh/id_rsa), not the real home or cwd. `vars` is what this script assigned.
 */
export function tildeMeaning(
  value: string,
  vars: ReadonlyMap<string, VarValue>,
  lookup: Lookup,
  cdHappened: boolean,
): TildeMeaning {
  const m = PREFIX.exec(value);
  if (!m) return { kind: 'core' };
  const rest = value.slice(m[0].length);
  const name = m[1] === '+' ? 'PWD' : m[1] === '-' ? 'OLDPWD' : 'HOME';
  const assigned = vars.get(name);
  if (name === 'HOME' && (assigned === undefined || assigned === 'unset')) {
    // Not reassigned, or unset: bash then takes the home from the password database, the call's home.
    return { kind: 'core' };
  }
  if (name === 'PWD' && assigned === undefined) return { kind: 'cwd', rest };
  if (name === 'OLDPWD' && assigned === undefined && !cdHappened) return { kind: 'core' };
  const v = lookup(name);
  if (v === undefined) return { kind: 'literal' };
  if (v === null) return { kind: 'uncertain', reason: `~${m[1]} expands $${name}, whose value is not known` };
  return { kind: 'values', values: v.map((x) => x + rest) };
}
