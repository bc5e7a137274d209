import type { ShellToolSpec } from './toolSpec.js';

/** Where the tools this project first knew keep a working directory. */
const COMMON_CWD = ['cwd', 'working_directory', 'workdir'];

/**
 * The shell tools toolgate knows, with the argument names their hosts really use. A wrong key name is a
 * bypass (the command would go unread), so each entry cites where its shape comes from. User options and
 * the policy's `shell.tools` are merged over this table.
 */
export const KNOWN_TOOLS: Readonly<Record<string, ShellToolSpec>> = {
  // The seeds' own shell tools (Hermes `terminal`, Wunderland `shell_execute`, …): `command`.
  shell_execute: { commandArg: 'command', cwdArg: COMMON_CWD },
  execute_shell_command: { commandArg: 'command', cwdArg: COMMON_CWD },
  terminal: { commandArg: 'command', cwdArg: COMMON_CWD },
  shell_exec: { commandArg: 'command', cwdArg: COMMON_CWD },
  run_command: { commandArg: 'command', cwdArg: COMMON_CWD },
  bash: { commandArg: 'command', cwdArg: COMMON_CWD },
  // Claude Code tools reference, Bash: {command, timeout?, description?, run_in_background?}.
  Bash: { commandArg: 'command', cwdArg: COMMON_CWD },
  // Gemini CLI docs/tools/shell.md: run_shell_command {command, description?, directory?}; later releases
  // renamed `directory` to `dir_path` (packages/core/src/tools/shell.ts). Runs `bash -c`.
  run_shell_command: { commandArg: 'command', cwdArg: ['dir_path', 'directory'] },
  // openai/codex codex-rs/core/src/openai_tools.rs: shell {command: string[], workdir?, timeout_ms?}; the
  // argv is spawned as is (`["bash", "-lc", "…"]`), and `apply_patch` argv is applied by Codex itself.
  shell: { commandArg: 'command', form: 'argv', cwdArg: 'workdir', applyPatch: true },
  // openai/codex tools/spec (shell_command): {command: string, workdir?, login?, timeout_ms?}, run by the
  // user's shell (bash here).
  shell_command: { commandArg: 'command', cwdArg: 'workdir', loginArg: 'login', applyPatch: true },
  // OpenAI Responses API, local_shell_call: action {type: "exec", command: string[], env, timeout_ms?,
  // user?, working_directory?}; the host spawns the argv with that environment.
  local_shell: {
    commandArg: 'command',
    form: 'argv',
    base: 'action',
    cwdArg: 'working_directory',
    envArg: 'env',
    userArg: 'user',
    applyPatch: true,
  },
  // openai/codex codex-rs/core/src/exec_command/exec_command_params.rs: exec_command {cmd, yield_time_ms,
  // max_output_tokens, shell = "/bin/bash", login = true} (+ workdir in unified exec): `shell -lc cmd`.
  exec_command: {
    commandArg: 'cmd',
    cwdArg: 'workdir',
    shellArg: 'shell',
    loginArg: 'login',
    defaultShell: '/bin/bash',
    defaultLogin: true,
    applyPatch: true,
  },
  // Same file, write_stdin {session_id, chars}: bytes typed into a running session.
  write_stdin: { commandArg: 'chars', kind: 'input' },
  // Cursor agent tools: run_terminal_cmd {command, is_background, explanation?}.
  run_terminal_cmd: { commandArg: 'command', cwdArg: COMMON_CWD },
  // cline/cline src/core/prompts/system/tools/execute-command.ts: execute_command {command,
  // requires_approval}. desktop-commander's execute_command (the earlier name of start_process) shares the
  // name and adds {timeout_ms, shell?}.
  execute_command: { commandArg: 'command', cwdArg: COMMON_CWD, shellArg: 'shell' },
  // wonderwhy-er/DesktopCommanderMCP src/tools/schemas.ts: StartProcessArgsSchema {command, timeout_ms,
  // shell?, verbose_timing?}; InteractWithProcessArgsSchema {pid, input, timeout_ms?, wait_for_prompt?}.
  start_process: { commandArg: 'command', cwdArg: COMMON_CWD, shellArg: 'shell' },
  interact_with_process: { commandArg: 'input', kind: 'input' },
  // All-Hands-AI/OpenHands openhands/agenthub/codeact_agent/tools/bash.py: execute_bash {command,
  // is_input?: "true" | "false", timeout?}; ipython.py: execute_ipython_cell {code}.
  execute_bash: { commandArg: 'command', cwdArg: COMMON_CWD, inputFlagArg: 'is_input' },
  execute_ipython_cell: { commandArg: 'code', kind: 'code' },
};

/**
 * Tools with a command-like argument that is not a command for this machine's shell. Claude Code tools
 * reference: `SlashCommand` {command: "/review"} expands a prompt template; `Skill` {command: "pdf"} loads a
 * skill by name. File editors whose `command` is the sub-operation (`view`, `create`, `str_replace`,
 * `insert`, `undo_edit`) beside a `path`: Anthropic's text editor tool (`str_replace_editor`,
 * `str_replace_based_edit_tool`) and memory tool (`memory`), OpenHands `str_replace_editor`
 * (openhands/agenthub/codeact_agent/tools/str_replace_editor.py), Goose `developer__text_editor`. Their
 * paths are left to folder-rules.
 */
export const KNOWN_NOT_SHELL: readonly string[] = [
  'SlashCommand',
  'Skill',
  'str_replace_editor',
  'str_replace_based_edit_tool',
  'memory',
  'text_editor',
  'developer__text_editor',
  // openai/codex tool_apply_patch.rs apply_patch {input}, OpenFang tool_apply_patch: a patch, not a command.
  // folder-rules reads it as a file tool (core's patchAccesses, the parser this plugin uses for the
  // `["apply_patch", …]` argv of Codex's shell tools), so the call is judged once, with or without this plugin.
  'apply_patch',
  'tool_apply_patch',
];
