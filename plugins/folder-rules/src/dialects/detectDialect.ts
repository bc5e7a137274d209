import { basename } from 'node:path';
import { configError } from '../configError.js';
import { isRecord } from '../parseConfig.js';
import { knownKeysAt } from './knownKeys.js';
import { MARKERS } from './markers.js';

/** Dialects a file's name suggests (`config.toml` → openfang, `agent.config.json` → wunderland). */
export function dialectsByName(file: string): string[] {
  const name = basename(file).toLowerCase();
  const out: string[] = [];
  if (/toolgate/.test(file.toLowerCase())) out.push('toolgate');
  if (/folder[-_]?guard/.test(name)) out.push('folderguard');
  if (name === 'agent.config.json' || /wunderland/.test(file.toLowerCase())) out.push('wunderland');
  if (/wolo/.test(file.toLowerCase())) out.push('wolo');
  if (/hermes/.test(file.toLowerCase())) out.push('hermes');
  if (/\.toml$/.test(name) || /openfang/.test(file.toLowerCase())) out.push('openfang');
  return out;
}

function markersOf(data: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!isRecord(data)) return out;
  for (const [dialect, markers] of Object.entries(MARKERS)) {
    const found = markers(data);
    if (found.length > 0) out[dialect] = found;
  }
  return out;
}

const describeKeys = (data: unknown) =>
  isRecord(data) && Object.keys(data).length > 0
    ? `its top-level keys are ${Object.keys(data).slice(0, 8).join(', ')}`
    : 'it is empty';

/**
 * The dialect of a parsed policy file: the one whose markers it holds, the file name breaking a tie.
 * Throws (naming the file) when no dialect or several recognise it.
 */
export function inferDialect(data: unknown, file: string): string {
  const found = markersOf(data);
  const candidates = Object.keys(found);
  const byName = dialectsByName(file);
  if (candidates.length === 1) return candidates[0]!;
  const named = candidates.filter((d) => byName.includes(d));
  if (named.length === 1) return named[0]!;
  // OpenFang's config.toml without a [file_policy] keeps the legacy gate (seed 004): only by its own name.
  if (candidates.length === 0 && /^(config|agent)\.toml$/i.test(basename(file))) return 'openfang';
  if (candidates.length === 0)
    throw configError(
      file,
      '(root)',
      data,
      `no dialect recognises this file (${describeKeys(data)}): pass --dialect`,
    );
  const list = candidates.map((d) => `${d} (${found[d]!.join(', ')})`).join('; ');
  throw configError(
    file,
    '(root)',
    Object.keys(data as object),
    `the file mixes dialects: ${list}; pass --dialect`,
  );
}

/** Top-level keys of dialects whose top level is not key-checked (it carries other settings too). */
const OWN_TOP_LEVEL: Record<string, readonly string[]> = { hermes: ['tools'] };

/**
 * An explicit dialect must find something of its own in the file: a native policy read as Hermes would
 * otherwise be an empty policy that allows everything. A file that holds another dialect's keys is named as
 * that dialect's (`stage: 'mismatch'`, before key checks); one that holds nothing of this dialect's, after
 * the key checks had their chance to point at a misspelt key (`stage: 'empty'`).
 */
export function checkDialect(
  dialect: string,
  data: unknown,
  file: string,
  stage: 'mismatch' | 'empty',
): void {
  const found = markersOf(data);
  if (found[dialect]) return;
  const others = Object.entries(found).map(([d, m]) => `a ${d} policy (${m.join(', ')})`);
  if (stage === 'mismatch' && others.length === 0) return;
  // Nothing of another dialect's, and a top-level key this one reads (`rules: []` alone is a native or
  // Wunderland policy that denies by default): the loader reads it for what it is.
  const own = knownKeysAt(dialect, []) ?? OWN_TOP_LEVEL[dialect];
  if (others.length === 0 && own && isRecord(data) && Object.keys(data).some((k) => own.includes(k))) return;
  // Hermes: "If allowed_paths / denied_paths is not set → current behavior (no restriction). Zero impact"
  // (seed 003): an empty Hermes config is read as one. Any other dialect named on an empty file is an error.
  if (dialect === 'hermes' && others.length === 0 && isRecord(data) && Object.keys(data).length === 0) return;
  // OpenFang: a TOML config with no [file_policy] and nothing of another dialect keeps the legacy gate.
  if (dialect === 'openfang' && others.length === 0 && /\.toml$/i.test(file) && isRecord(data)) return;
  const looks = others.length > 0 ? `; it looks like ${others.join(' or ')}` : '';
  throw configError(
    file,
    '(root)',
    isRecord(data) ? Object.keys(data) : data,
    `--dialect ${dialect} recognises nothing in this file (${describeKeys(data)})${looks}`,
  );
}
