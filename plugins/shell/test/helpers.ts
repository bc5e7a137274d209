import type { Access, CallContext } from '@toolgate/core';

/** A context whose directories do not exist, so paths resolve lexically and results do not depend on the host. */
/** Variables every fixture sees. */
export const FIXTURE_ENV: Record<string, string> = { D: '/data', SP: '/sp ace', G: '/etc/*', EMPTY: '' };

export function fakeContext(env: Record<string, string> = {}, cwd = '/ws/project'): CallContext {
  return {
    sessionId: 's1',
    agentId: 'a1',
    cwd,
    workspace: '/ws',
    home: '/home/agent',
    env: { HOME: '/home/agent', ...env },
  };
}

/**
 * One access as a fixture line writes it: `read /etc/passwd`, `write* /x` (a subtree), `write /l (link)`
 * (on the link itself), `write ?` (uncertain: the path cannot be known).
 */
export function formatAccess(a: Access): string {
  const op = `${a.op}${a.scope === 'subtree' ? '*' : ''}`;
  if (!a.certain) return `${op} ?`;
  return `${op} ${a.path}${a.onLink ? ' (link)' : ''}`;
}

export function formatAll(accesses: readonly Access[]): string[] {
  // Markers (`runs`: a program file, a config file) are no accesses of the command: core takes them out
  // after asking the policy whether the agent could have written them (see programIdentity.test.ts).
  return [...new Set(accesses.filter((a) => a.runs === undefined).map(formatAccess))].sort();
}
