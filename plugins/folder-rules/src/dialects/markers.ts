import { isRecord } from '../parseConfig.js';

type Data = Record<string, unknown>;

const NATIVE_ONLY = [
  'version',
  'mode',
  'unknownTools',
  'rejectTraversal',
  'relativeTo',
  'hideWriteTools',
  'shell',
  'tests',
  'narrowOnly',
  // No seed dialect has a network section (issue 26).
  'network',
];
const DEFAULT_WORDS = ['allow', 'deny', 'prompt', 'read', 'write'];
const WOLO_KEYS = [
  'allowed_write_paths',
  'max_confirmations_per_session',
  'audit_denied',
  'audit_log_file',
  'wild_mode',
];

const records = (v: unknown): Data[] => (Array.isArray(v) ? v.filter(isRecord) : []);

/** Native layer markers (also inside `agents.<name>`). */
function nativeLayer(d: Data, at: string): string[] {
  const out = NATIVE_ONLY.filter((k) => d[k] !== undefined).map((k) => `${at}${k}`);
  const def = d.default;
  if (
    (typeof def === 'string' && DEFAULT_WORDS.includes(def)) ||
    (isRecord(def) && ('read' in def || 'write' in def) && !('allow' in def))
  )
    out.push(`${at}default`);
  if (records(d.rules).some((r) => 'access' in r)) out.push(`${at}rules[].access`);
  if (isRecord(d.tools) && Object.values(d.tools).some((t) => isRecord(t) && 'op' in t))
    out.push(`${at}tools.*.op`);
  return out;
}

/**
 * What in a parsed file is unmistakably one dialect's: the keys (and shapes) only that dialect reads. A file
 * a dialect finds none of its markers in is not that dialect's, whatever else it holds: reading it anyway
 * would compile an empty (or legacy) policy out of someone else's rules.
 */
export const MARKERS: Record<string, (d: Data) => string[]> = {
  toolgate(d) {
    const out = nativeLayer(d, '');
    if (isRecord(d.agents))
      for (const [name, a] of Object.entries(d.agents))
        if (isRecord(a) && nativeLayer(a, '').length > 0) out.push(`agents.${name}`);
    return out;
  },
  folderguard: (d) => ['readPaths', 'writePaths'].filter((k) => k in d),
  wunderland(d) {
    const out = ['defaultPolicy', 'inheritFromTier', 'tier', 'seedId'].filter((k) => k in d);
    if (isRecord(d.security)) out.push('security');
    if (records(d.rules).some((r) => ('read' in r || 'write' in r) && !('access' in r)))
      out.push('rules[].read/write');
    return out;
  },
  wolo(d) {
    if ('path_safety' in d) return ['path_safety'];
    return WOLO_KEYS.filter((k) => k in d);
  },
  hermes(d) {
    // Hermes' `tools.<tool>` settings (a native `tools` table's entries carry `op` instead).
    const tools = d.tools;
    if (!isRecord(tools) || Object.values(tools).some((t) => isRecord(t) && 'op' in t)) return [];
    const lists = ['terminal', 'file'].filter((k) => isRecord(tools[k])).map((k) => `tools.${k}`);
    return lists.length > 0 ? lists : ['tools'];
  },
  openfang(d) {
    const out = 'file_policy' in d ? ['file_policy'] : [];
    if (isRecord(d.agents))
      for (const [name, a] of Object.entries(d.agents))
        if (isRecord(a) && 'file_policy' in a) out.push(`agents.${name}.file_policy`);
    return out;
  },
};
