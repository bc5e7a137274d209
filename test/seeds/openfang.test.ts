import { type CallContext, createGuard, Stage } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { describe, expect, it } from 'vitest';

// Seed 004 (OpenFang `[file_policy]`), through the public API.
const ctx: CallContext = {
  sessionId: 's',
  agentId: 'a',
  cwd: '/srv/ws',
  workspace: '/srv/ws',
  home: '/home/u',
  env: { HOME: '/home/u' },
};
const read = (path: string) => ({ tool: 'file_read', args: { path } });
const write = (path: string) => ({ tool: 'file_write', args: { path, content: '' } });

function guardFor(toml: string) {
  let prompts = 0;
  const guard = createGuard({
    plugins: [
      folderRules({ dialect: 'openfang', file: 'config.toml', source: toml }),
      {
        name: 'count-approvals',
        apply(hooks) {
          hooks.onPrompt.tap({ stage: Stage.APPROVAL }, () => {
            prompts++;
            return { approved: true, by: 'test' };
          });
        },
      },
    ],
  });
  return { guard, prompts: () => prompts };
}

describe('seed 004: OpenFang', () => {
  it('"non-empty replaces, omitted inherits, both-default returns None to preserve legacy behavior": an empty [file_policy] keeps the legacy gates', async () => {
    for (const toml of ['[file_policy]\n', '[file_policy]\ndeny_paths = []\nwrite_paths = []\n']) {
      const { guard } = guardFor(toml);
      // Legacy: reads unrestricted, writes only under the workspace, `..` rejected.
      expect((await guard.check(read('/etc/hosts'), ctx)).action, toml).toBe('allow');
      expect((await guard.check(write('/srv/ws/a'), ctx)).action, toml).toBe('allow');
      expect((await guard.check(write('/etc/x'), ctx)).action, toml).toBe('deny');
      expect((await guard.check(read('/srv/ws/../../etc/hosts'), ctx)).reasons[0]?.code).toBe(
        'PATH_TRAVERSAL',
      );
    }
    // A [file_policy] that says anything is a policy: default deny.
    const { guard } = guardFor('[file_policy]\nwrite_paths = ["<workspace>/**"]\n');
    expect((await guard.check(read('/etc/hosts'), ctx)).action).toBe('deny');
  });

  it('"double-prompt under approval_policy.requires_approval = true AND a prompt_paths hit … flips the assertion to 1": one approval', async () => {
    const toml =
      '[file_policy]\nprompt_paths = ["<workspace>/secrets/**"]\nwrite_paths = ["<workspace>/**"]\n\n[approval_policy]\nrequires_approval = true\n';
    const both = guardFor(toml);
    const d = await both.guard.check(write('/srv/ws/secrets/k'), ctx);
    expect(d.action).toBe('allow');
    expect(d.reasons.map((r) => r.code).sort()).toEqual(['PATH_PROMPT', 'TOOL_APPROVAL']);
    expect(both.prompts()).toBe(1);
    // The tool gate alone prompts too (a path the policy allows outright).
    const before = both.prompts();
    expect((await both.guard.check(write('/srv/ws/a'), ctx)).action).toBe('allow');
    expect(both.prompts()).toBe(before + 1);
    // "Deny short-circuits before any approval surfaces": a denied path is never asked about.
    const after = both.prompts();
    expect((await both.guard.check(write('/etc/x'), ctx)).action).toBe('deny');
    expect(both.prompts()).toBe(after);
  });

  it('requires_approval as a list names the tools; other tools are not gated', async () => {
    const { guard } = guardFor(
      '[file_policy]\nwrite_paths = ["<workspace>/**"]\n\n[approval_policy]\nrequires_approval = ["get_weather"]\n',
    );
    const d = await guard.check(write('/srv/ws/a'), ctx, { resolvePrompts: false });
    expect(d.action).toBe('allow');
    const s = await guard.check({ tool: 'get_weather', args: { city: 'Oslo' } }, ctx, {
      resolvePrompts: false,
    });
    expect(s.action).toBe('prompt');
    expect(() => guardFor('[approval_policy]\nrequires_approval = "yes"\n')).toThrow(
      /config\.toml.*approval_policy\.requires_approval.*"yes"/,
    );
  });
});
