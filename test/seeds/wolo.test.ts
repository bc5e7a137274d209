import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { describe, expect, it } from 'vitest';

// Seed 002 (wolo PathGuard) through the library; the CLI side is packages/cli/test/seedDialects.test.ts.
const ctx: CallContext = {
  sessionId: 's',
  agentId: 'a',
  cwd: '/home/user/project',
  workspace: '/home/user/project',
  home: '/home/user',
  env: { HOME: '/home/user' },
};
const write = (path: string) => ({ tool: 'write_file', args: { path, content: '' } });

describe('seed 002: wolo', () => {
  it('"legacy_config.to_path_guard_config(cli_paths=[Path("/tmp")], workdir=…)": cliPaths join the allowlist', async () => {
    const policy = loadPolicy({
      dialect: 'wolo',
      file: 'config.yaml',
      source: 'path_safety:\n  allowed_write_paths: [/workspace]\n',
      cliPaths: ['/srv/cache', '~/notes'],
    });
    const guard = createGuard({ plugins: [folderRules({ policy })] });
    for (const p of [
      '/srv/cache/x',
      '/home/user/notes/a.md',
      '/workspace/a',
      '/home/user/project/a',
      '/tmp/a',
    ])
      expect((await guard.check(write(p), ctx)).action, p).toBe('allow');
    const other = await guard.check(write('/srv/other/x'), ctx, { resolvePrompts: false });
    expect(other.action).toBe('prompt');
    expect(other.reasons[0]?.reason).toBe(
      'This path is not in the default allowlist (/tmp) or configured whitelist.',
    );
    expect(policy.rules.find((r) => r.pattern === '/srv/cache/**')?.source).toBe(
      'wolo:(command line)#cli_paths[0]',
    );
    // cli_paths are wolo's: another dialect refuses them instead of ignoring them.
    expect(() => loadPolicy({ dialect: 'hermes', source: '{}', cliPaths: ['/x'] })).toThrow(/cliPaths.*wolo/);
  });

  it('"Wild mode: bypass all path safety checks": unanalysable shell is allowed too', async () => {
    const policy = loadPolicy({ dialect: 'wolo', source: 'path_safety:\n  wild_mode: true\n' });
    const guard = createGuard({ plugins: [shell(), folderRules({ policy })] });
    for (const command of ['eval "$X"', 'cat "$(mktemp)" > /etc/x', 'python3 -c "import os"'])
      expect((await guard.check({ tool: 'bash', args: { command } }, ctx)).action, command).toBe('allow');
    expect(policy.extras).toMatchObject({ wild: true, audit: 'all' });
  });
});
