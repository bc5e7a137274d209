import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';

/** What reading one configuration file the program may read gave. */
export type ConfigRead = { text: string; field: Field } | { absent: true } | { uncertain: string };

/**
 * Reads a configuration file the program reads itself (invariant 6: configuration is input). A file that
 * does not exist — and that no earlier command of the line may create — is no input: nothing is emitted.
 * One that exists is reported as a marker (`runs`: core asks the policy whether the agent could have written
 * it, and if so the call is uncertain) and its text is returned for the model to apply. One that cannot be
 * read with certainty (a path not known, written earlier on the line, unreadable) makes the call uncertain.
 */
export function readConfig(cx: CommandContext, f: Field, runs: string, tag: string): ConfigRead {
  const c = cx.readContent(f, 256 * 1024);
  if ('uncertain' in c) {
    if (/: (ENOENT|ENOTDIR)$/.test(c.uncertain)) return { absent: true };
    cx.uncertain(`${cx.name} reads its configuration from ${f.raw}: ${c.uncertain}`, 'write', f.raw);
    return { uncertain: c.uncertain };
  }
  cx.read(f, { runs, tag });
  return { text: c.text, field: f };
}

/** A value from a configuration file as a field: no shell expansion happened to it (no glob, no `~`). */
export function configField(value: string): Field {
  return literal(value);
}

/**
 * A path the program builds from an environment variable (`$CURL_HOME/.curlrc`): `undefined` when the
 * variable is unset or empty (the program skips it), `null` when its value is not known.
 */
export function underVariable(cx: CommandContext, name: string, rest: string): Field | null | undefined {
  const v = cx.variable(name);
  if (v === undefined || v === '') return undefined;
  if (v === null) return null;
  return literal(rest === '' ? v : `${v.replace(/\/+$/, '')}/${rest}`);
}
