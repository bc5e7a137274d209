import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { dialectOf } from '../config/dialectOf.js';
import { discoverPolicy } from '../config/discoverPolicy.js';
import { UsageError } from '../exitCodes.js';
import { HOOK_HOSTS, type HookHostName } from '../integrations/hookHostNames.js';
import { addHook, removeHook } from './editHooks.js';
import {
  INSTALL_HINT,
  launcherCommand,
  PROJECT_TOOLGATE,
  projectPathWord,
  shellQuote,
} from './hookLauncher.js';
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
 * The command the assistant runs: the launcher (hookLauncher.ts) around `toolgate hook <assistant>` and the
 * policy flags when one was named. No path of this machine: toolgate is found in the project or on PATH
 * when the hook runs, and a policy inside the project is named relative to the project directory, so the
 * same settings file works in every clone. Without --policy the hook discovers the project's policy from
 * the directory the assistant runs it in.
 */
function hookCommand(host: HookHostName, scope: Scope, projectDir: string, o: InstallOptions): string {
  const words = ['hook', host];
  if (o.policy !== undefined) {
    const file = resolve(o.policy);
    const rel = relative(projectDir, file);
    const inProject = scope !== 'user' && rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
    words.push('--policy', inProject ? projectPathWord(host, rel.split(sep).join('/')) : shellQuote(file));
    // A dialect named or known by the file's name is written down; otherwise the hook infers it each call.
    const dialect = dialectOf(file, o.dialect);
    if (dialect !== undefined) words.push('--dialect', shellQuote(dialect));
  }
  if (o.approveAllowed) words.push('--approve-allowed');
  return launcherCommand(host, words.join(' '));
}

/** Where the installed hook will find toolgate on this machine now (the launcher's own order), if anywhere. */
function toolgateFound(projectDir: string): string | undefined {
  const local = join(projectDir, PROJECT_TOOLGATE);
  if (existsSync(local)) return local;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'toolgate');
    try {
      if (statSync(candidate).isFile()) return `${candidate} (on PATH)`;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

const HOST_NAME: Record<HookHostName, string> = { 'claude-code': 'Claude Code', 'gemini-cli': 'Gemini CLI' };

/** Who reads the file `install` writes, in words. */
function scopeNote(host: HookHostName, scope: Scope): string {
  if (scope === 'user')
    return `your user settings: ${HOST_NAME[host]} runs the hook in every project on this machine`;
  if (scope === 'local')
    return "this clone only (Claude Code's uncommitted local settings; listed in .gitignore)";
  return `shared: commit it, and every teammate's ${HOST_NAME[host]} runs the hook in this project`;
}

/**
 * `install --local`: `.claude/settings.local.json` is personal (Claude Code itself expects it to stay out of
 * git). Adds it to the project's .gitignore when no line there names it yet; the line added, or undefined.
 */
function gitignoreLocal(projectDir: string, file: string): string | undefined {
  const ignore = join(projectDir, '.gitignore');
  const entry = relative(projectDir, file).split(sep).join('/');
  const text = existsSync(ignore) ? readFileSync(ignore, 'utf8') : '';
  const names = new Set([entry, `/${entry}`, '.claude/', '/.claude/', '.claude', '/.claude', '.claude/*']);
  if (text.split(/\r?\n/).some((line) => names.has(line.trim()))) return undefined;
  writeFileSync(ignore, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${entry}\n`);
  return entry;
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
  const command = hookCommand(host, scope, projectDir, o);
  const edit = addHook(readSettings(file), host, command);
  const event = HOST_SETTINGS[host].event;
  if (o.dryRun) {
    out.write(`dry run: ${edit.outcome === 'unchanged' ? 'nothing to change in' : `would write`} ${file}\n`);
    if (edit.outcome !== 'unchanged') out.write(renderSettings(edit.settings));
    return 0;
  }
  if (edit.outcome !== 'unchanged') writeSettings(file, edit.settings);
  const ignored = scope === 'local' ? gitignoreLocal(projectDir, file) : undefined;
  const verb = { added: 'installed', updated: 'updated', unchanged: 'already installed' }[
    edit.outcome as 'added'
  ];
  const found = toolgateFound(projectDir);
  const policyRel = relative(projectDir, policy);
  const policyShared = scope === 'project' && !policyRel.startsWith('..') && !isAbsolute(policyRel);
  const who =
    scope === 'user' ? 'this machine needs' : scope === 'local' ? 'this clone needs' : 'every teammate needs';
  out.write(
    [
      `toolgate ${host} ${event} hook ${verb} in ${file}`,
      `  file: ${scopeNote(host, scope)}`,
      ...(ignored ? [`  .gitignore: added ${ignored}`] : []),
      `  runs: ${command}`,
      `  policy: ${policy}`,
      `  ${who}: Node.js and toolgate (${INSTALL_HINT})${policyShared ? `, and ${policyRel.split(sep).join('/')} committed` : ''}; where the hook finds no toolgate it blocks every tool call (exit 2) and says why`,
      found
        ? `  toolgate here: ${found}`
        : `  warning: toolgate is neither in ${join(projectDir, 'node_modules', 'toolgate')} nor on PATH: until it is, ${HOST_NAME[host]} blocks every tool call`,
      '',
    ].join('\n'),
  );
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
