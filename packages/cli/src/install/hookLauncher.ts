import type { HookHostName } from '../integrations/hookHostNames.js';

// The command `toolgate install` writes into an assistant's settings: a few POSIX shell lines that find
// toolgate where the project (or this machine) has it and never let a missing or broken toolgate pass a tool
// call. Both assistants run a hook's `command` through a shell (Claude Code: bash or the user's $SHELL;
// Gemini CLI: `bash -c`), and both run the tool when a hook exits with anything but 2 (Claude Code: a
// "non-blocking error"; Gemini CLI: exit 0 or 1 allow, and a death by signal reads as exit 0). So the shell
// that already starts for every hook carries the fail-closed rule itself:
//
//   - node missing, or toolgate found neither in the project nor on PATH: one line on stderr, exit 2;
//   - toolgate ran: its exit 0 (an answer on stdout, or none) and exit 2 (a blocking error, its reason on
//     stderr) pass through; any other status — a crash (1), a signal (128+n), a program that cannot run
//     (126/127) — is followed by one line saying so, and exit 2.
//
// Exit 2 with a line on stderr blocks in both: Claude Code hands stderr to the model as the reason; Gemini CLI
// turns plain-text output with an exit code other than 0 and 1 into `decision: "deny"` with that text as the
// reason (hookRunner's convertPlainTextToHookOutput, 0.61.0).
//
// Where toolgate is looked for, first to last: the project's own install (`<project>/node_modules/toolgate`,
// run with `node` directly: npm's symlink and pnpm's shell shim in node_modules/.bin cost a process or two
// more), then `toolgate` on PATH (a global install). The project is the directory the assistant exports
// (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`), else the hook's working directory. Written as `${VAR:-.}`:
// neither assistant rewrites that spelling in the command text (Claude Code substitutes `${CLAUDE_PROJECT_DIR}`
// in some hooks, Gemini CLI `$GEMINI_PROJECT_DIR` and `$CLAUDE_PROJECT_DIR` as shell-quoted words), so the
// shell reads it from the environment, as the assistant set it.
//
// What it costs over running node directly: the shell forks node instead of exec-ing it (it must see the
// exit status), and two `command -v` lookups; the shell itself is started by the assistant either way.

/** The environment variable each assistant sets to the project directory when it runs a hook. */
export const PROJECT_DIR_VAR: Record<HookHostName, string> = {
  'claude-code': 'CLAUDE_PROJECT_DIR',
  'gemini-cli': 'GEMINI_PROJECT_DIR',
};

/** The project directory as the hook's shell reads it (see above). */
export function projectDirWord(host: HookHostName): string {
  return `\${${PROJECT_DIR_VAR[host]}:-.}`;
}

/** One argument as a POSIX shell word. */
export const shellQuote = (s: string): string =>
  /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;

/** Text inside double quotes, literally (no expansion of `$`, backquotes or backslashes in it). */
const inDoubleQuotes = (s: string): string => s.replace(/[$`"\\]/g, (c) => `\\${c}`);

/** A path beneath the project directory as one shell word: `"${CLAUDE_PROJECT_DIR:-.}/rel/path"`. */
export function projectPathWord(host: HookHostName, rel: string): string {
  return `"${projectDirWord(host)}/${inDoubleQuotes(rel)}"`;
}

/** Where the project's own toolgate is, relative to the project directory. */
export const PROJECT_TOOLGATE = 'node_modules/toolgate/bin/toolgate.cjs';

/** What a teammate (or this machine later) needs for the hook to answer rather than block. */
export const INSTALL_HINT = 'npm install --save-dev toolgate in the project, or npm install -g toolgate';
const SHORT_HINT = 'npm i -D toolgate, or npm i -g toolgate';

/**
 * The hook command for `host`: `args` are the words after `toolgate`, already shell words (`hook
 * claude-code --policy "…"`). The result is one line of POSIX shell (also valid zsh). Each way it can fail
 * prints one line (`$t`, `$s`: the path looked at, the status seen) and exits 2.
 */
export function launcherCommand(host: HookHostName, args: string): string {
  const block = (why: string) => `{ echo "toolgate: call blocked: ${why}" >&2; exit 2; }`;
  return [
    `command -v node >/dev/null 2>&1 || ${block(`node is not on PATH (the toolgate hook needs Node.js and toolgate: ${SHORT_HINT})`)}`,
    `t=${projectPathWord(host, PROJECT_TOOLGATE)}`,
    `if [ -f "$t" ]; then node "$t" ${args}; elif command -v toolgate >/dev/null 2>&1; then toolgate ${args}; else ${block(`toolgate is not installed (no $t, no toolgate on PATH): ${SHORT_HINT}`)}; fi`,
    's=$?',
    'case $s in 0|2) exit $s;; esac',
    block(`the toolgate hook failed (status $s, no answer): reinstall toolgate (${SHORT_HINT})`),
  ].join('; ');
}

/** Whether an installed command is this launcher (new form) rather than a bare `node …/toolgate.cjs hook …`. */
export function isLauncherCommand(command: string): boolean {
  return command.includes(PROJECT_TOOLGATE) && /\bexit 2\b/.test(command);
}
