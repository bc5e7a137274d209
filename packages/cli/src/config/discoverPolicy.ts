import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../exitCodes.js';

/** File names a project policy may have, in the order they are tried in each directory. */
export const PROJECT_POLICY_FILES = [
  'toolgate.yaml',
  'toolgate.yml',
  'toolgate.json',
  'toolgate.toml',
  '.toolgate/policy.yaml',
  '.toolgate/policy.yml',
  '.toolgate/policy.json',
  '.toolgate/policy.toml',
] as const;

/** File names in the user config directory (`$XDG_CONFIG_HOME/toolgate`, default `~/.config/toolgate`). */
export const USER_POLICY_FILES = ['policy.yaml', 'policy.yml', 'policy.json', 'policy.toml'] as const;

export interface DiscoveredPolicy {
  file: string;
  /** Where it was found, for messages: `project`, `user` or `TOOLGATE_POLICY`. */
  origin: 'project' | 'user' | 'TOOLGATE_POLICY';
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** `$XDG_CONFIG_HOME/toolgate`, else `~/.config/toolgate`; undefined without an absolute HOME. */
export function userConfigDir(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'toolgate');
  const home = env.HOME;
  return home && isAbsolute(home) ? join(home, '.config', 'toolgate') : undefined;
}

/**
 * The policy a command uses when it is given no `--policy`: the nearest `toolgate.yaml` (or `.toolgate/policy.yaml`
 * and the other names above) walking up from `start`, then the user config directory, then `$TOOLGATE_POLICY`.
 * A project file wins over the user's, like `.editorconfig` or `.npmrc`: the project knows its own layout.
 * Nothing found is a usage error that says where it looked and how to create one.
 */
export function discoverPolicy(start: string, env: NodeJS.ProcessEnv = process.env): DiscoveredPolicy {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    for (const name of PROJECT_POLICY_FILES) {
      const file = join(dir, name);
      if (isFile(file)) return { file, origin: 'project' };
    }
    if (dirname(dir) === dir) break;
  }
  const user = userConfigDir(env);
  if (user)
    for (const name of USER_POLICY_FILES) {
      const file = join(user, name);
      if (isFile(file)) return { file, origin: 'user' };
    }
  const fromEnv = env.TOOLGATE_POLICY;
  if (fromEnv) {
    const file = resolve(start, fromEnv);
    if (!isFile(file))
      throw new UsageError(`TOOLGATE_POLICY names ${JSON.stringify(fromEnv)}, which is not a file`);
    return { file, origin: 'TOOLGATE_POLICY' };
  }
  throw new UsageError(
    `no policy found: no toolgate.yaml or .toolgate/policy.yaml in ${resolve(start)} or above, none in ${user ?? '~/.config/toolgate'}, and TOOLGATE_POLICY is unset. Run \`toolgate init\` to write one, or pass --policy <file>`,
  );
}
