import type { Finding, RejectionEnvelope, SandboxedRun } from './types.js';

export type Disclosure = 'full' | 'redacted';

const DEFAULT_HINTS: Record<string, string> = {
  PATH_DENIED: 'Use a path under one of the allowed roots, or ask the user.',
  PATH_UNCERTAIN: 'Use a literal absolute path without variables, substitutions or globs, or ask the user.',
  PATH_TRAVERSAL: 'Use a path without ".." components.',
  SHELL_UNCERTAIN: 'Rewrite the command with literal paths and without substitutions, or ask the user.',
  SHELL_METACHARACTER: 'Run the command without $(), backticks, <(), <<<, eval or source.',
  PROMPT_DENIED: 'The user declined this operation; do not retry it. Ask the user what to do instead.',
  PROMPT_TIMEOUT: 'Nobody approved the operation in time; ask the user before retrying.',
  PROMPT_UNANSWERED: 'This operation needs approval that is not available here; ask the user.',
  SESSION_CANCELLED: 'The user cancelled this session; stop and report back.',
  PLUGIN_ERROR: 'The guard could not evaluate this call; report the error to the user.',
  UNKNOWN_TOOL: 'This tool is not known to the guard; use a known file tool or ask the user.',
  NO_POLICY: 'No policy is configured for file access; ask the user to configure one.',
  TOOL_DISABLED: 'This tool is disabled by the policy; use another tool or ask the user.',
  INVALID_CALL: 'Send the tool call with a tool name and an object of arguments.',
  AUDIT_UNAVAILABLE: 'The audit trail cannot be written; ask the user to fix it before retrying.',
  NETWORK_DENIED:
    "The policy does not let this call reach that host: use one of allowed_hosts, or ask the user to allow the host in the policy's network section.",
  NETWORK_PROMPT:
    'A human must approve reaching this host; wait for the answer or use one of the allowed hosts.',
  NETWORK_UNCERTAIN:
    'Write the URL or host literally (no variables, substitutions, or hosts taken from files or other programs), or ask the user.',
};

/** At most this many allowed roots are shown; the rest are counted. A plugin may cap lower. */
export const MAX_ALLOWED_PATHS = 20;

function allowedPathsOf(
  finding: Finding,
): Pick<RejectionEnvelope, 'allowed_paths' | 'allowed_paths_omitted'> {
  const list = finding.allowedPaths;
  if (!Array.isArray(list) || list.length === 0) return {};
  const more = typeof finding.allowedPathsOmitted === 'number' ? finding.allowedPathsOmitted : 0;
  if (list.length <= MAX_ALLOWED_PATHS)
    return more > 0
      ? { allowed_paths: [...list], allowed_paths_omitted: more }
      : { allowed_paths: [...list] };
  return {
    allowed_paths: list.slice(0, MAX_ALLOWED_PATHS),
    allowed_paths_omitted: list.length - MAX_ALLOWED_PATHS + more,
  };
}

/** Network findings: the host, the rule that decided and (full disclosure) the allowed hosts, capped. */
function networkOf(
  finding: Finding,
  disclosure: Disclosure,
): Pick<RejectionEnvelope, 'host' | 'operation' | 'rule' | 'allowed_hosts' | 'allowed_hosts_omitted'> {
  const net = finding.network;
  if (net === undefined || net === null || typeof net !== 'object') return {};
  const out: Pick<
    RejectionEnvelope,
    'host' | 'operation' | 'rule' | 'allowed_hosts' | 'allowed_hosts_omitted'
  > = {
    host: typeof net.host === 'string' ? net.host : net.raw,
    operation: net.method === 'read' ? 'read' : 'write',
  };
  if (disclosure !== 'full') return out;
  if (finding.rule && typeof finding.rule.pattern === 'string') out.rule = finding.rule.pattern;
  const hosts = finding.allowedHosts;
  if (Array.isArray(hosts)) {
    out.allowed_hosts = hosts.slice(0, MAX_ALLOWED_PATHS);
    if (hosts.length > MAX_ALLOWED_PATHS) out.allowed_hosts_omitted = hosts.length - MAX_ALLOWED_PATHS;
  }
  return out;
}

/**
 * The rejection envelope the model sees (ARCHITECTURE.md). With `disclosure: 'redacted'` the allowed roots
 * are not revealed, so a probing model learns only that its path was refused.
 */
export function buildEnvelope(
  finding: Finding,
  tool: string,
  decisionId: string,
  disclosure: Disclosure,
): RejectionEnvelope {
  const access = finding.access;
  const envelope: RejectionEnvelope = {
    error: `Tool call rejected: ${finding.reason}`,
    code: finding.code,
    tool_name: tool,
    ...(access ? { path: access.realPath ?? access.path, operation: access.op } : {}),
    ...(disclosure === 'full' ? allowedPathsOf(finding) : {}),
    ...networkOf(finding, disclosure),
    hint: finding.hint ?? DEFAULT_HINTS[finding.code] ?? 'Ask the user how to proceed.',
    decision_id: decisionId,
  };
  return envelope;
}

/**
 * What the model is told about a call that runs inside the OS sandbox: not a rejection, but a reason to
 * read "Permission denied" or "Read-only file system" inside it as the policy speaking.
 */
export function sandboxEnvelope(run: SandboxedRun, tool: string, decisionId: string): RejectionEnvelope {
  const why =
    run.uncertain.length > 0
      ? `analysis could not prove it (${run.uncertain.map((f) => f.reason).join('; ')})`
      : 'the policy runs every shell command inside the sandbox';
  return {
    error: `Tool call sandboxed: ${why}; it runs inside the OS sandbox compiled from the policy`,
    code: 'SANDBOXED',
    tool_name: tool,
    hint: 'Inside the sandbox only the paths the policy allows are writable and denied paths are hidden: a "Permission denied" or "Read-only file system" error means the policy forbids that path.',
    decision_id: decisionId,
    sandboxed: true,
  };
}
