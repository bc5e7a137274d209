import { isAbsolute } from 'node:path';
import type { CallContext } from '@toolgate/core';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Variables that make the shell or the programs it starts run or load code of their choosing (startup
 * files, preloads, pagers, editors, interpreter options, config files that name commands). A tool's `env`
 * argument setting one of them leaves what the command runs unknown.
 */
const CODE_VARS =
  /^(IFS|CDPATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|ZDOTDIR|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|PS4|GIT_[A-Z_]*(SSH|COMMAND|PAGER|EDITOR|ASKPASS|EXEC_PATH|DIR|WORK_TREE|EXTERNAL_DIFF|TEMPLATE_DIR)|GIT_CONFIG[A-Z0-9_]*|SSH_ASKPASS|SUDO_ASKPASS|PAGER|EDITOR|VISUAL|BROWSER|LESSOPEN|LESSCLOSE|MANPAGER|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|RUBYOPT|RUBYLIB|LUA_INIT|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CURL_HOME|WGETRC|NPM_CONFIG_[A-Z0-9_]+|TMPDIR)$/i;

/** The state a command starts in, or why it cannot be known. */
export type ToolEnv = { ctx: CallContext } | { uncertain: string };

/**
 * Applies a tool's `env` argument to the call's context: the variables the command starts with (`$HOME`,
 * `~`, `$CDPATH`…) are the tool's, not the host's. What cannot be known is uncertain: a value that is not a
 * string, a name the shell would not take as a variable (`BASH_FUNC_cat%%` defines a function), `HOME`
 * that is not absolute, a `PATH` other than the host's (command names would find other programs), and
 * variables that load code (`CODE_VARS`).
 */
export function applyToolEnv(ctx: CallContext, env: unknown): ToolEnv {
  if (env === undefined || env === null) return { ctx };
  if (typeof env !== 'object' || Array.isArray(env))
    return { uncertain: 'the env argument is not an object' };
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string' || value.includes('\0'))
      return { uncertain: `env ${name} is not a usable string` };
    if (!NAME.test(name)) return { uncertain: `env ${JSON.stringify(name)} is not a plain variable name` };
    if (CODE_VARS.test(name)) return { uncertain: `env ${name} changes what programs run or load` };
    if (name === 'PATH' && value !== ctx.env.PATH)
      return { uncertain: 'env PATH differs from the host: command names may find other programs' };
    if (name === 'HOME' && !isAbsolute(value)) return { uncertain: 'env HOME is not an absolute path' };
    vars[name] = value;
  }
  if (Object.keys(vars).length === 0) return { ctx };
  return { ctx: { ...ctx, env: { ...ctx.env, ...vars }, home: vars.HOME ?? ctx.home } };
}
