/**
 * The one registry of codes toolgate emits. Verdict codes appear in findings, envelopes and audit records;
 * `TOOLGATE_ERR_*` codes are thrown as `ToolgateError` for programming and configuration mistakes.
 * Every code here is documented in docs/errors.md (a test enforces it). Plugins add their codes here.
 */
export const verdictCodes = {
  PATH_DENIED: 'A path the call touches is denied by policy.',
  PATH_UNCERTAIN:
    'A path the call touches could not be determined with certainty (unset variable, unknown user, link loop, unparseable command).',
  PATH_TRAVERSAL: 'A raw path contains a `..` component and the policy rejects traversal outright.',
  PATH_PROMPT: "A path the call touches needs a human's approval.",
  NO_POLICY:
    'The call touches paths but no policy plugin judged them, and the guard is configured to deny unguarded access.',
  UNKNOWN_TOOL: 'The tool is not classified and carries path-like arguments.',
  INVALID_CALL: 'The tool call is malformed (no tool name, or arguments that are not an object).',
  PLUGIN_ERROR:
    'A plugin threw, rejected, returned an invalid value or exceeded its hook timeout; the call fails closed.',
  PROMPT_DENIED: 'A human (or an approval strategy) refused the call.',
  PROMPT_TIMEOUT: 'Nobody answered the approval request in time.',
  PROMPT_UNANSWERED: 'No approval handler answered the request (none installed, or all declined to answer).',
  SESSION_CANCELLED: 'The session was cancelled by a human; every later call is denied.',
  PROMPT_LIMIT: 'The session reached its maximum number of approval requests; further prompts are denied.',
  SHELL_UNCERTAIN: 'A shell command contains a construct whose paths cannot be determined.',
  SUBTREE_UNBOUNDED:
    'A subtree access could not be walked within its bound (entries or time), or the same command may write into it first; it was judged by every rule that could match anything beneath it.',
  SHELL_BUDGET:
    'Analysing the shell command exceeded its time or size budget; what was not analysed is uncertain.',
  SHELL_METACHARACTER:
    'A shell command contains a metacharacter the policy forbids (`$()`, backticks, `eval`, `source`…).',
  SANDBOXED:
    'Not a denial: analysis could not prove the shell call, so it runs inside the OS sandbox compiled from the policy (`sandbox: uncertain | always`).',
  SANDBOX_UNAVAILABLE:
    'The call would run inside the OS sandbox, but the sandbox cannot run here (no bubblewrap, no user namespaces, or the policy cannot be compiled to mounts); the call is denied, never run unconfined.',
  GUARD_FILE:
    "A write to a file or directory toolgate itself trusts (the policy files in use, toolgate's cache and config, an assistant's hook settings), or a read inside toolgate's runtime directory: refused whatever the policy says.",
  TOOL_DISABLED:
    'The policy disables this tool (Hermes `tools.<tool>.enabled: false`): every call of it is denied, with or without paths.',
  TOOL_APPROVAL:
    "The policy requires approval for every call of this tool (OpenFang `requires_approval`); asked in the same single request as the call's path prompts.",
  AUDIT_UNAVAILABLE:
    'The audit trail cannot be written (disk full, permissions, lock held) and audit is required (`audit-log` option `required`, CLI `--audit-required`): every call is denied until it can.',
  FILE_CHANGED:
    'A write or edit of a file that changed on disk since the agent last read it in this session, or that it never read (`@toolgate/filetime`, wolo FileTime): read it again first.',
  NETWORK_DENIED:
    "A host the call reaches (a URL argument, curl/git/npm/ssh in a shell command) is denied by the policy's `network` section; the envelope names the host, the rule and the allowed hosts.",
  NETWORK_PROMPT: "A host the call reaches needs a human's approval (`network` rule or default `prompt`).",
  NETWORK_UNCERTAIN:
    'The call reaches the network but the host cannot be determined with certainty (a variable, a name from data, a config file that cannot be read), and the policy restricts the network.',
} as const;

export const errorCodes = {
  TOOLGATE_ERR_INVALID_OPTIONS:
    'Options passed to a factory or to createGuard are invalid; the message names the field and value.',
  TOOLGATE_ERR_INVALID_CONTEXT: 'A CallContext is missing a field or has a relative cwd/workspace/home.',
  TOOLGATE_ERR_INVALID_PATH: 'A path given to resolvePath is not a string, is empty, or contains a NUL byte.',
  TOOLGATE_ERR_INVALID_PLUGIN: 'A plugin is not an object with a non-empty `name` and an `apply` function.',
  TOOLGATE_ERR_DUPLICATE_PLUGIN: 'Two plugins with the same name were added to one guard.',
  TOOLGATE_ERR_FROZEN: 'A plugin was added or a hook tapped after the guard served its first call.',
  TOOLGATE_ERR_INVALID_CONFIG:
    'A policy or dialect file is invalid; the message names file, field and value.',
  TOOLGATE_ERR_IO: 'A file toolgate needs could not be read or written.',
  TOOLGATE_ERR_REJECTED:
    'Thrown by `guard.wrap` (with `onDeny: "throw"`) when a call is denied; carries the envelope.',
} as const;

export type VerdictCode = keyof typeof verdictCodes;
export type ErrorCode = keyof typeof errorCodes;
export type Code = VerdictCode | ErrorCode;

export function isKnownCode(code: string): code is Code {
  return Object.hasOwn(verdictCodes, code) || Object.hasOwn(errorCodes, code);
}
