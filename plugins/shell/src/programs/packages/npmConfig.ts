import type { CommandContext } from '../../effects/extractTypes.js';
import { literal } from '../spec.js';

/**
 * Configuration npm, pnpm and yarn 1 read besides argv (npm-config(7), "Environment Variables" and
 * "npmrc Files"): `npm_config_<key>` variables (any case, `-` written `_`), the user npmrc
 * (`$NPM_CONFIG_USERCONFIG`, default `~/.npmrc`) and the global one (`$PREFIX/etc/npmrc`). The project
 * `.npmrc` is read by projectNpmrc.
 *
 * The keys below change which program runs or where files land; a variable setting one makes the call
 * uncertain (a value the model does not follow). Keys outside the list (loglevel, fund, audit, registry…)
 * change neither; `ignore-scripts` and `enable-pre-post-scripts` only run fewer scripts than the model judges. The npmrc files are markers: the policy says whether the agent could have written them.
 */
export const NPM_CONFIG_KEYS = [
  'script-shell',
  'shell',
  'node-options',
  'node-gyp',
  'userconfig',
  'globalconfig',
  'prefix',
  'global',
  'location',
  'cache',
  'git',
  'editor',
  'browser',
  'viewer',
  'init-module',
  'onload-script',
  'tmp',
  'workspace',
  'workspaces',
  'include-workspace-root',
  'bin-links',
  'modules-dir',
  'store-dir',
  'virtual-store-dir',
  'global-dir',
  'global-bin-dir',
  'dangerously-allow-all-builds',
  'only-built-dependencies',
] as const;

const SYSTEM_NPMRC = ['/etc/npmrc', '/usr/etc/npmrc', '/usr/local/etc/npmrc'];

/** Reports what npm's environment and npmrc files feed the run (see NPM_CONFIG_KEYS). */
export function npmConfigInputs(cx: CommandContext): void {
  for (const key of NPM_CONFIG_KEYS) {
    const snake = key.replace(/-/g, '_');
    for (const name of [`npm_config_${snake}`, `NPM_CONFIG_${snake.toUpperCase()}`]) {
      const v = cx.variable(name);
      if (v !== undefined)
        cx.uncertain(`${cx.name} reads ${name} from the environment, which sets ${key}`, 'write', name);
    }
  }
  const runs = `${cx.name} reads its configuration from`;
  const user = { ...literal('~/.npmrc'), tilde: true };
  if (cx.exists(user)) cx.read(user, { runs, tag: 'npmrc' });
  for (const f of SYSTEM_NPMRC) if (cx.exists(literal(f))) cx.read(literal(f), { runs, tag: 'npmrc' });
}
