/** Shells whose `-c` the engine analyses (zsh with the checks below); anything else runs unknown syntax. */
const POSIX_SHELLS = new Set(['bash', 'sh', 'dash', 'zsh']);
/** Where a shell named by path must live to be the system's shell rather than a program of anyone's making. */
const SYSTEM_BIN = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin']);
const BASH = new Set(['bash', '/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash', '/opt/homebrew/bin/bash']);

/**
 * zsh syntax bash does not have and that runs or expands code: glob qualifiers attached to a word
 * (`*(e:'cmd':)`, `f(+fn)`), `=(cmd)` and `=cmd` expansions, `$~var`, and `${(e)…}`-style flags.
 */
const ZSH_ONLY = /[^\s;|&<>$`(]\(|\$~|\$\{[~=^(#]|(^|[\s;|&(])=\S/;

/** The shell a tool names for its script, or why its script cannot be analysed. */
export type ShellChoice = { shell: string; plain: boolean } | { uncertain: string };

/**
 * Which shell runs a tool's script. `plain` when it is bash itself (the engine's own reading, so the
 * script is analysed directly); otherwise the script is analysed as `<shell> -c <script>`, so the engine
 * applies what it knows of that shell (`sh -c` may be dash).
 */
export function shellBinary(value: unknown, fallback: string, script: string): ShellChoice {
  // `shell: true` (Python's subprocess flag) says "a shell", not which one.
  const shell =
    value === undefined || value === null || value === '' || typeof value === 'boolean' ? fallback : value;
  if (typeof shell !== 'string' || shell.includes('\0'))
    return { uncertain: 'the shell argument is not a string' };
  const at = Math.max(shell.lastIndexOf('/'), shell.lastIndexOf('\\'));
  const base = shell.slice(at + 1).replace(/\.exe$/i, '');
  if (!POSIX_SHELLS.has(base))
    return { uncertain: `commands for shell ${JSON.stringify(shell)} cannot be analysed` };
  if (at !== -1 && !SYSTEM_BIN.has(shell.slice(0, at)))
    return { uncertain: `shell ${JSON.stringify(shell)} is not a system shell` };
  if (base === 'zsh' && ZSH_ONLY.test(script))
    return { uncertain: 'the command uses zsh syntax that runs or expands code' };
  return { shell, plain: BASH.has(shell) };
}
