import { isAbsolute, resolve } from 'node:path';
import { type CompiledPolicy, type DialectName, loadPolicy } from '@toolgate/folder-rules';
import { type CliSettings, splitCliSettings } from './cliSettings.js';
import { dialectOf } from './dialectOf.js';
import { discoverPolicy } from './discoverPolicy.js';
import { cachedCompile } from './policyCache.js';
import { toolgateVersion } from './version.js';

export interface LoadConfigOptions {
  /** The policy file; absent: discovered from `discoverFrom` (see `discoverPolicy`). */
  policy?: string;
  /** Absent: inferred from the file (see `dialectOf`). */
  dialect?: string;
  agent?: string;
  overlays?: readonly string[];
  /** wolo `-P` paths (seed 002's `cli_paths`). */
  cliPaths?: readonly string[];
  /** The policy text instead of the file's (wolo's defaults when `~/.wolo/config.yaml` does not exist). */
  source?: string;
  /** Where discovery starts (a project directory). */
  discoverFrom: string;
  env: NodeJS.ProcessEnv;
}

export interface LoadedConfig {
  file: string;
  /** `given` (--policy) or where discovery found it. */
  origin: 'given' | 'project' | 'user' | 'TOOLGATE_POLICY';
  dialect: string;
  policy: CompiledPolicy;
  settings: CliSettings;
}

/**
 * The policy every command (check, explain, lint, mcp, hook) runs with, and the CLI's own settings from the
 * same file (`plugins:`, `hook:`), compiled once and cached on disk (see `policyCache`).
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const found =
    options.policy !== undefined
      ? { file: resolve(options.policy), origin: 'given' as const }
      : discoverPolicy(options.discoverFrom, options.env);
  const { file } = found;
  const dialect = dialectOf(file, options.dialect);
  const overlays = options.overlays?.map((o) => (isAbsolute(o) ? o : resolve(o)));
  const key = {
    version: toolgateVersion(),
    ...(dialect !== undefined ? { dialect } : {}),
    file,
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(overlays !== undefined ? { overlays } : {}),
    ...(options.cliPaths !== undefined ? { cliPaths: options.cliPaths } : {}),
  };
  const compile = async (env: NodeJS.ProcessEnv) => {
    // The CLI's own sections are native ones; a file whose dialect is still to be inferred may be native too.
    const split =
      options.source === undefined && (dialect === 'toolgate' || dialect === undefined)
        ? await splitCliSettings(file)
        : { plugins: [], approveAllowed: false };
    const source = options.source ?? split.source;
    const policy = loadPolicy({
      ...(dialect !== undefined ? { dialect: dialect as DialectName } : {}),
      file,
      env,
      ...(source !== undefined ? { source } : {}),
      ...(options.agent !== undefined ? { agent: options.agent } : {}),
      ...(overlays !== undefined ? { overlays } : {}),
      ...(options.cliPaths !== undefined ? { cliPaths: options.cliPaths } : {}),
    });
    return { policy, settings: { plugins: split.plugins, approveAllowed: split.approveAllowed } };
  };
  // A given source is no file the cache could check for changes: compiled each time.
  const compiled =
    options.source !== undefined
      ? await compile(options.env)
      : await cachedCompile(key, options.env, compile);
  return { file, origin: found.origin, dialect: compiled.policy.dialect, ...compiled };
}
