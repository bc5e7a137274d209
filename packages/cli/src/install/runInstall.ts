import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dialectOf } from '../config/dialectOf.js';
import { discoverPolicy } from '../config/discoverPolicy.js';
import { UsageError } from '../exitCodes.js';
import { HOOK_HOSTS, type HookHostName } from '../integrations/hookHostNames.js';
import { addHook, removeHook } from './editHooks.js';
import { HOST_SETTINGS, type Scope } from './hostSettings.js';
import { readSettings, renderSettings, writeSettings } from './settingsFile.js';

export interface InstallOptions {
  project?: boolean;
  local?: boolean;
  user?: boolean;
  dryRun?: boolean;
  /** The project directory (default: this shell's). */
  dir?: string;
  policy?: string;
  dialect?: string;
  approveAllowed?: boolean;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

function hostOf(name: string): HookHostName {
  if (!(HOOK_HOSTS as readonly string[]).includes(name))
    throw new UsageError(
      `unknown assistant ${JSON.stringify(name)}; expected one of ${HOOK_HOSTS.join(', ')}`,
    );
  return name as HookHostName;
}

function scopeOf(o: InstallOptions): Scope {
  const chosen = (['project', 'local', 'user'] as const).filter((s) => o[s]);
  if (chosen.length > 1)
    throw new UsageError(`choose one of --project, --local, --user (got ${chosen.join(', ')})`);
  return chosen[0] ?? 'project';
}

function context(name: string, o: InstallOptions) {
  const host = hostOf(name);
  const scope = scopeOf(o);
  if (scope === 'local' && host !== 'claude-code')
    throw new UsageError(
      '--local is a Claude Code scope (.claude/settings.local.json); use --project or --user',
    );
  const home = process.env.HOME && isAbsolute(process.env.HOME) ? process.env.HOME : homedir();
  const projectDir = resolve(o.dir ?? process.cwd());
  return { host, scope, projectDir, file: HOST_SETTINGS[host].file(scope, projectDir, home) };
}

/**
 * The command the assistant runs: this node and this CLI by absolute path (no PATH lookup, no npx start-up
 * on every tool call), `hook <assistant>`, and the policy flags when one was named. Without them the hook
 * discovers the project's policy from the directory the assistant exports as the project.
 */
function hookCommand(host: HookHostName, o: InstallOptions): string {
  const bin = fileURLToPath(new URL('../../bin/toolgate.cjs', import.meta.url));
  const parts = [process.execPath, bin, 'hook', host];
  if (o.policy !== undefined) {
    const file = resolve(o.policy);
    parts.push('--policy', file);
    // A dialect named or known by the file's name is written down; otherwise the hook infers it each call.
    const dialect = dialectOf(file, o.dialect);
    if (dialect !== undefined) parts.push('--dialect', dialect);
  }
  if (o.approveAllowed) parts.push('--approve-allowed');
  return parts.map(shellQuote).join(' ');
}

/** A hook with no policy to find would block every tool call: refuse to install one. */
function checkPolicy(scope: Scope, projectDir: string, o: InstallOptions): string {
  if (o.policy !== undefined) return resolve(o.policy);
  try {
    const found = discoverPolicy(projectDir, process.env);
    if (scope === 'user' && found.origin === 'project')
      throw new UsageError(
        `--user installs the hook for every project, but the only policy found is the project's (${found.file}); write ~/.config/toolgate/policy.yaml (toolgate init --user) or pass --policy`,
      );
    return found.file;
  } catch (error) {
    if (error instanceof UsageError && /no policy found/.test(error.message))
      throw new UsageError(
        `${error.message.replace(/\. Run .*/, '')}. Run \`toolgate init\` first (or pass --policy <file>): without a policy the hook blocks every tool call`,
      );
    throw error;
  }
}

export function runInstall(
  name: string,
  o: InstallOptions,
  out: NodeJS.WritableStream = process.stdout,
): number {
  const { host, scope, projectDir, file } = context(name, o);
  const policy = checkPolicy(scope, projectDir, o);
  const command = hookCommand(host, o);
  const edit = addHook(readSettings(file), host, command);
  const event = HOST_SETTINGS[host].event;
  if (o.dryRun) {
    out.write(`dry run: ${edit.outcome === 'unchanged' ? 'nothing to change in' : `would write`} ${file}\n`);
    if (edit.outcome !== 'unchanged') out.write(renderSettings(edit.settings));
    return 0;
  }
  if (edit.outcome !== 'unchanged') writeSettings(file, edit.settings);
  const verb = { added: 'installed', updated: 'updated', unchanged: 'already installed' }[
    edit.outcome as 'added'
  ];
  out.write(`toolgate ${host} ${event} hook ${verb} in ${file}\n  runs: ${command}\n  policy: ${policy}\n`);
  return 0;
}

export function runUninstall(
  name: string,
  o: InstallOptions,
  out: NodeJS.WritableStream = process.stdout,
): number {
  const { host, file } = context(name, o);
  const edit = removeHook(readSettings(file), host);
  if (edit.outcome === 'absent') {
    out.write(`no toolgate ${host} hook in ${file}: nothing to remove\n`);
    return 0;
  }
  if (o.dryRun) {
    out.write(`dry run: would write ${file}\n${renderSettings(edit.settings)}`);
    return 0;
  }
  writeSettings(file, edit.settings);
  out.write(`toolgate ${host} hook removed from ${file}\n`);
  return 0;
}
