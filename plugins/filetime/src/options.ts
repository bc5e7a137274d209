import { describeValue, ToolgateError } from '@toolgate/core';

/** Options of {@link fileTime}. */
export interface FileTimeOptions {
  /**
   * What a write of a stale file gets: `'deny'` (default: wolo refuses it) or `'prompt'` (a human decides, in
   * the call's one approval request).
   */
  onStale?: 'deny' | 'prompt';
  /** wolo's wild mode (`path_safety.wild_mode: true`): the check is off. */
  wild?: boolean;
  /**
   * A variable of the call's environment that turns wild mode on when it is `"true"` (default
   * `WOLO_WILD_MODE`, as the wolo dialect reads it); `false` to ignore the environment.
   */
  wildEnv?: string | false;
  /**
   * Check writes made by shell commands too (`sed -i`, `>`), not only file tools' writes and edits (default
   * `false`: wolo checks its write, edit and multiedit tools). Reads by either always count.
   */
  shell?: boolean;
}

export interface CompiledOptions {
  onStale: 'deny' | 'prompt';
  wild: boolean;
  wildEnv: string | undefined;
  shell: boolean;
}

const KNOWN = new Set(['onStale', 'wild', 'wildEnv', 'shell']);

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `filetime: ${field} must be ${expected}, got ${describeValue(value)}`,
  );
}

export function compileOptions(options: FileTimeOptions = {}): CompiledOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw invalid('options', options, 'an object');
  for (const key of Object.keys(options))
    if (!KNOWN.has(key))
      throw invalid(key, (options as Record<string, unknown>)[key], 'absent (unknown option)');
  const { onStale = 'deny', wild = false, wildEnv = 'WOLO_WILD_MODE', shell = false } = options;
  if (onStale !== 'deny' && onStale !== 'prompt') throw invalid('onStale', onStale, '"deny" or "prompt"');
  if (typeof wild !== 'boolean') throw invalid('wild', wild, 'a boolean');
  if (typeof shell !== 'boolean') throw invalid('shell', shell, 'a boolean');
  if (wildEnv !== false && (typeof wildEnv !== 'string' || wildEnv === ''))
    throw invalid('wildEnv', wildEnv, 'a variable name or false');
  return { onStale, wild, wildEnv: wildEnv === false ? undefined : wildEnv, shell };
}
