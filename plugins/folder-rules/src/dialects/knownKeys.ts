import { configError } from '../configError.js';
import { isRecord } from '../parseConfig.js';
import { didYouMean } from '../suggest.js';

const NATIVE_LAYER = [
  'version',
  'mode',
  'default',
  'rules',
  'unknownTools',
  'tools',
  'rejectTraversal',
  'relativeTo',
  'hideWriteTools',
  'shell',
  'tests',
  'narrowOnly',
  // @toolgate/sandbox's switch (issue 16).
  'sandbox',
  'uncertain',
  'limits',
  // Hosts calls and the sandbox may reach (issue 26).
  'network',
];
const FOLDER_CONFIG = ['defaultPolicy', 'rules', 'inheritFromTier'];
const WUNDERLAND_RULE = ['pattern', 'read', 'write', 'description'];
const WOLO = [
  'allowed_write_paths',
  'max_confirmations_per_session',
  'audit_denied',
  'audit_log_file',
  'wild_mode',
];
const FILE_POLICY = ['default', 'narrow_only', 'deny_paths', 'prompt_paths', 'read_paths', 'write_paths'];

/** The keys a dialect reads at one level of its file (for "did you mean"), by the level's path. */
export function knownKeysAt(
  dialect: string,
  path: readonly (string | number)[],
): readonly string[] | undefined {
  const p = path.map((s) => (typeof s === 'number' ? '#' : s));
  const at = (...want: string[]) => want.length === p.length && want.every((w, i) => w === '*' || w === p[i]);
  switch (dialect) {
    case 'toolgate': {
      const inner = p[0] === 'agents' && p.length >= 2 ? p.slice(2) : p;
      const layer = (...want: string[]) =>
        want.length === inner.length && want.every((w, i) => w === '*' || w === inner[i]);
      if (p.length === 0) return [...NATIVE_LAYER, 'agents'];
      if (p[0] === 'agents' && p.length === 2) return NATIVE_LAYER;
      if (layer('rules', '#')) return ['pattern', 'access', 'description', 'vector', 'ops'];
      if (layer('tools', '*')) return ['op', 'pathArgs', 'paths', 'subtree', 'writes', 'urls', 'urlText'];
      if (layer('shell')) return ['metacharacters', 'allowedPaths', 'deniedPaths', 'tools', 'notShell'];
      if (layer('shell', 'tools', '*'))
        return [
          'commandArg',
          'form',
          'cwdArg',
          'envArg',
          'shellArg',
          'loginArg',
          'defaultShell',
          'defaultLogin',
          'base',
          'kind',
          'inputFlagArg',
          'applyPatch',
          'userArg',
        ];
      if (layer('tests', '#')) return ['call', 'path', 'op', 'host', 'method', 'expect'];
      if (layer('network')) return ['default', 'presets', 'rules'];
      if (layer('network', 'rules', '#'))
        return ['host', 'action', 'method', 'ports', 'schemes', 'description'];
      return undefined;
    }
    case 'folderguard':
      return p.length === 0 ? ['readPaths', 'writePaths'] : undefined;
    case 'wunderland':
      // `agents: {id: config}`: one file, a policy per agent (seed 001's setFolderPermissions('agent-id', …)).
      if (at()) return [...FOLDER_CONFIG, 'filesystem', 'tier', 'permissionSet', 'agents'];
      if (at('rules', '#') || at('security', 'folderPermissions', 'rules', '#')) return WUNDERLAND_RULE;
      if (at('security', 'folderPermissions')) return FOLDER_CONFIG;
      return undefined;
    case 'wolo':
      return at() || at('path_safety') ? WOLO : undefined;
    case 'hermes':
      // The lists seed 003 defines; a misspelt one would otherwise be read as "no restriction".
      if (at('tools', 'terminal'))
        return ['allowed_paths', 'denied_paths', 'enabled', 'allow_metacharacters'];
      if (at('tools', 'file')) return ['allowed_read_paths', 'allowed_write_paths', 'enabled'];
      return undefined;
    case 'openfang':
      return at('file_policy') || at('agents', '*', 'file_policy') ? FILE_POLICY : undefined;
    default:
      return undefined;
  }
}

/** `unknown field` with a suggestion when a known key is close (`acess` → did you mean "access"?). */
export function unknownField(
  file: string,
  field: string,
  value: unknown,
  key: string,
  known: readonly string[],
) {
  const near = didYouMean(key, known);
  return configError(file, field, value, `unknown field${near ? ` (did you mean "${near}"?)` : ''}`);
}

/**
 * Refuses keys a dialect does not read, at every level it defines, before its loader runs: a misspelt key
 * is never silently ignored (Hermes `allowed_pathz` would be "no restriction"). Levels a dialect shares with
 * other settings (Hermes' and OpenFang's top level, Wunderland's agent config) are not checked.
 */
export function checkKnownKeys(dialect: string, data: unknown, file: string): void {
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, [...path, i]);
      return;
    }
    if (!isRecord(value)) return;
    // Wunderland's agent.config.json carries many other settings: only its folderPermissions are checked.
    const skipTop =
      dialect === 'wunderland' && path.length === 0 && (isRecord(value.security) || 'seedId' in value);
    const known = skipTop ? undefined : knownKeysAt(dialect, path);
    for (const [key, v] of Object.entries(value)) {
      if (known && !known.includes(key)) {
        const field = [...path, key].reduce<string>(
          (f, s) => (typeof s === 'number' ? `${f}[${s}]` : f === '' ? s : `${f}.${s}`),
          '',
        );
        throw unknownField(file, field, v, key, known);
      }
      // Wolo's path_safety, when present, is the only level of wolo keys.
      walk(v, [...path, key]);
    }
  };
  const root =
    dialect === 'wolo' && isRecord(data) && isRecord(data.path_safety)
      ? { path_safety: data.path_safety }
      : data;
  if (dialect === 'wolo' && root !== data) {
    walk((root as { path_safety: unknown }).path_safety, ['path_safety']);
    return;
  }
  walk(root, []);
}
