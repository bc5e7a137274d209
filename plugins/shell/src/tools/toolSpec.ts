/**
 * How one tool that runs commands carries them. Every key is a top-level argument name, or one level down
 * under `base` (Codex `local_shell` puts its command in `action.command`).
 */
export interface ShellToolSpec {
  /** The argument holding the command. */
  commandArg: string;
  /**
   * `script` (default): a string a shell runs (`bash -c`). `argv`: an array executed as is, without a shell
   * (Codex `shell`: `["bash", "-lc", "…"]`). `either`: whichever the value is.
   */
  form?: 'script' | 'argv' | 'either';
  /** Argument(s) naming the working directory; the first present one is used. */
  cwdArg?: string | readonly string[];
  /** An argument with extra environment variables (`{HOME: "/etc"}`): the state the command starts in. */
  envArg?: string;
  /** An argument naming the shell binary that runs a `script` (`zsh`, `/bin/bash`, `powershell`). */
  shellArg?: string;
  /** A boolean argument: run the shell as a login shell (`bash -lc`). */
  loginArg?: string;
  /** The shell a `script` runs in when `shellArg` is absent (default `bash`). */
  defaultShell?: string;
  /** Whether a `script` runs in a login shell when `loginArg` is absent (Codex `exec_command`: true). */
  defaultLogin?: boolean;
  /** When present and an object, the arguments above are read from inside it (`action`). */
  base?: string;
  /**
   * `command` (default): the command is analysed. `input`: the value is typed into a process that is already
   * running (its effect depends on what that process is): uncertain unless empty. `code`: the value is code
   * of another language (a Python cell): uncertain unless empty. `patch`: a Codex `apply_patch` envelope,
   * whose files are writes.
   */
  kind?: 'command' | 'input' | 'code' | 'patch';
  /** A boolean argument that turns the command into input for the running process (OpenHands `is_input`). */
  inputFlagArg?: string;
  /** The host intercepts `apply_patch` and writes the patch's files itself (Codex). */
  applyPatch?: boolean;
  /** An argument that runs the command as another user (Codex `local_shell` `user`): uncertain when set. */
  userArg?: string;
}

/** A spec with its defaults filled in, as the plugin uses it. */
export interface CompiledToolSpec {
  readonly commandArg: string;
  readonly form: 'script' | 'argv' | 'either';
  readonly cwdArgs: readonly string[];
  readonly envArg: string | undefined;
  readonly shellArg: string | undefined;
  readonly loginArg: string | undefined;
  readonly defaultShell: string;
  readonly defaultLogin: boolean;
  readonly base: string | undefined;
  readonly kind: 'command' | 'input' | 'code' | 'patch';
  readonly inputFlagArg: string | undefined;
  readonly applyPatch: boolean;
  readonly userArg: string | undefined;
}
