import type { ToolSpec } from './types.js';

/**
 * The common path argument names (for reference and lint). Extraction does not stop at them: every argument
 * whose name says it is a path (`@toolgate/core`'s `pathKeyKind`: `*_path`, `*_file`, `source*`, `dest*`…)
 * is checked, at any depth.
 */
export const PATH_ARGS: readonly string[] = [
  'path',
  'paths',
  'file_path',
  'filePath',
  'filepath',
  'file',
  'files',
  'filename',
  'directory',
  'dir',
  'folder',
  'source',
  'destination',
  'target',
  'src',
  'dest',
  'from',
  'to',
  'old_path',
  'new_path',
  'notebook_path',
  'working_directory',
  'workdir',
  'cwd',
  'root',
  'output',
  'output_path',
  'input_path',
];

/**
 * Shell tools: the shell plugin analyses their commands; folder-rules never extracts their args itself, and
 * denies a call of one that the shell plugin did not claim. The names of @toolgate/shell's KNOWN_TOOLS
 * (its README cites each host's source); a test in test/attacks keeps the two lists in step.
 */
export const SHELL_TOOLS: ReadonlySet<string> = new Set([
  'shell_execute',
  'execute_shell_command',
  'terminal',
  'shell_exec',
  'run_command',
  'Bash',
  'bash',
  'shell',
  'run_shell_command',
  'shell_command',
  'local_shell',
  'exec_command',
  'write_stdin',
  'run_terminal_cmd',
  'execute_command',
  'start_process',
  'interact_with_process',
  'execute_bash',
  'execute_ipython_cell',
]);

/**
 * Argument names (compared without case and separators) under which an undeclared tool carries a command:
 * the same list as @toolgate/shell's `findCommands`, which analyses them. Such a call is a shell call.
 */
export const COMMAND_KEYS: ReadonlySet<string> = new Set([
  'command',
  'commands',
  'cmd',
  'cmds',
  'cmdline',
  'commandline',
  'shellcommand',
  'bashcommand',
  'script',
  'shellscript',
  'bash',
  'sh',
  'code',
  'argv',
  'program',
  'executable',
  'exe',
  'binary',
]);

/**
 * Tools whose command-like argument is not a command for this machine: @toolgate/shell's KNOWN_NOT_SHELL
 * (Claude Code `SlashCommand`, `Skill`; file editors whose `command` is the sub-operation beside a `path`).
 */
export const NOT_SHELL_TOOLS: ReadonlySet<string> = new Set([
  'SlashCommand',
  'Skill',
  'str_replace_editor',
  'str_replace_based_edit_tool',
  'memory',
  'text_editor',
  'developer__text_editor',
]);

const read: ToolSpec = { op: 'read' };
const readTree: ToolSpec = { op: 'read', subtree: true };
/** Names and metadata of one directory (or one path's metadata): judged as a read of that path alone. */
const list: ToolSpec = { op: 'list' };
/** Names and metadata of everything beneath: the directories beneath are listed, no file is opened. */
const listTree: ToolSpec = { op: 'list', subtree: true };
const write: ToolSpec = { op: 'write' };
const move: ToolSpec = { op: 'move' };
const copy: ToolSpec = { op: 'copy' };
const none: ToolSpec = { op: 'none' };
const opaque: ToolSpec = { op: 'opaque' };
const fetchUrl: ToolSpec = { op: 'none', urls: [{ arg: 'url', method: 'read' }] };
const TEXT_EDITOR: ToolSpec = {
  op: 'write',
  pathArgs: ['path'],
  opByArg: { arg: 'command', ops: { view: 'read' } },
};

/**
 * Every tool named in the seeds and the MCP filesystem server's 14 tools. Move/rename: both ends are writes
 * (the source is removed); copy: source read, destination write; delete/append/edit/mkdir: write.
 */
export const BUILTIN_TOOLS: Readonly<Record<string, ToolSpec>> = {
  // MCP filesystem server
  read_file: read,
  read_text_file: read,
  read_media_file: read,
  read_multiple_files: read,
  write_file: write,
  edit_file: write,
  create_directory: write,
  // What each really does (server-filesystem 2026.8.31 source): list_directory and *_with_sizes readdir one
  // directory (and stat its entries); directory_tree and search_files readdir recursively without following
  // links (Dirent types) and match names only; get_file_info stats one path.
  list_directory: list,
  list_directory_with_sizes: list,
  directory_tree: listTree,
  move_file: move,
  search_files: listTree,
  get_file_info: list,
  list_allowed_directories: none,
  // Folder Guard (seed 000)
  read_workspace_file: read,
  list_workspace_files: list,
  regex_search_workspace_files: readTree,
  semantic_search_workspace_files: readTree,
  read_image: read,
  update_workspace_file: write,
  diff_patch_workspace_file: write,
  delete_workspace_file: write,
  write_workspace_file: write,
  move_workspace_file: move,
  // Wunderland (seed 001)
  file_read: read,
  file_write: write,
  file_append: write,
  file_delete: write,
  obsidian_read: read,
  obsidian_write: write,
  apple_notes_save: write,
  git_clone: {
    op: 'write',
    pathArgs: ['destination', 'directory', 'path', 'target', 'dir'],
    urls: ['url', 'repo', 'repository'],
  },
  // Hermes (seed 003) and OpenFang (seed 004)
  file: { op: 'write' },
  file_list: list,
  file_move: move,
  file_copy: copy,
  copy_file: copy,
  media_describe: read,
  media_transcribe: read,
  speech_to_text: read,
  image_analyze: read,
  tool_media_describe: read,
  tool_media_transcribe: read,
  tool_speech_to_text: read,
  tool_image_analyze: read,
  // Coding-assistant hook tools
  Read: read,
  Write: write,
  Edit: write,
  MultiEdit: write,
  NotebookEdit: write,
  // Anthropic's text editor tool (str_replace_based_edit_tool, text_editor_2025*; str_replace_editor before)
  // and Goose's developer__text_editor: `command` picks the operation on `path`; anything else writes.
  str_replace_based_edit_tool: TEXT_EDITOR,
  str_replace_editor: TEXT_EDITOR,
  text_editor: TEXT_EDITOR,
  developer__text_editor: TEXT_EDITOR,
  // Claude Code: Glob matches file names beneath a directory; Grep reads contents; LS lists one directory.
  Glob: listTree,
  Grep: readTree,
  LS: list,
  // Patch tools (openai/codex codex-rs/core/src/tool_apply_patch.rs: apply_patch {input}; OpenFang
  // tool_apply_patch, seed 004: "enumerates AddFile, UpdateFile (incl. move_to destination), DeleteFile as
  // Write ops"): every file the patch names is a write; a patch that does not parse is denied.
  apply_patch: { op: 'patch' },
  tool_apply_patch: { op: 'patch' },
  // Output-writing tools (seed 004): "tool_image_generate writes to /tmp/openfang_uploads/ ungated";
  // "tool_text_to_speech and tool_canvas_present write to <workspace>/output/ without consulting
  // file_policy". Here those directories are judged as writes like any other, and any path argument too.
  image_generate: { op: 'write', writes: ['/tmp/openfang_uploads'] },
  tool_image_generate: { op: 'write', writes: ['/tmp/openfang_uploads'] },
  text_to_speech: { op: 'write', writes: ['<workspace>/output'] },
  tool_text_to_speech: { op: 'write', writes: ['<workspace>/output'] },
  canvas_present: { op: 'write', writes: ['<workspace>/output'] },
  tool_canvas_present: { op: 'write', writes: ['<workspace>/output'] },
  // Tools that run code (Hermes `code_execution`): their paths cannot be extracted.
  code_execution: opaque,
  execute_code: opaque,
  run_code: opaque,
  code_interpreter: opaque,
  python_exec: opaque,
  // Non-filesystem tools pass untouched by the path policy. Fetch tools reach the host of their URL (the
  // network policy judges it); a search names no host the agent chose (the provider's search runs it).
  web_search: none,
  // Gemini CLI's web_fetch takes a prompt with up to 20 URLs in its text (packages/core/src/tools/web-fetch.ts).
  web_fetch: { op: 'none', urls: [{ arg: 'url', method: 'read' }], urlText: ['prompt'] },
  WebSearch: none,
  WebFetch: fetchUrl,
  // Not `fetch` (the MCP reference fetch server's tool): a name that generic may belong to a tool with path
  // arguments, which `none` would stop checking. An undeclared tool's top-level `url` is judged anyway.
};

/** Seed 003's write-op words: an unknown tool named with one of them is treated as a write. */
export const WRITE_WORDS: readonly string[] = [
  'write',
  'create',
  'delete',
  'move',
  'append',
  'edit',
  'copy',
  'rename',
  'overwrite',
  'mkdir',
  'remove',
  'save',
  'update',
  'patch',
  'put',
  'upload',
];

/** `mcp__filesystem__read_file` and `filesystem.read_file` name the server's `read_file`. */
export function baseToolName(name: string): string {
  const mcp = /^mcp__[^_]+(?:_[^_]+)*?__(.+)$/.exec(name);
  if (mcp?.[1]) return mcp[1];
  return name;
}

const READ_WORDS = [
  'read',
  'get',
  'list',
  'search',
  'find',
  'view',
  'show',
  'cat',
  'stat',
  'describe',
  'fetch',
  'open',
  'load',
];

/** An unknown tool whose name says it only reads (and does not also say it writes). */
export function looksReadOnly(name: string): boolean {
  // Whole words only (`frobnicate` is not `cat`); write words match anywhere, which errs towards write.
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return !looksWriteLike(name) && words.some((w) => READ_WORDS.includes(w));
}

export function looksWriteLike(name: string): boolean {
  const lower = name.toLowerCase();
  return WRITE_WORDS.some((w) => lower.includes(w));
}
