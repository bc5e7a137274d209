import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { folderRules } from '../src/index.js';

const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };

describe('a denied listing names the roots it could list', () => {
  // Seed 000: "} else if isReadOnly { // Read tool: readPaths + writePaths" — `list_workspace_files` is one of
  // the read tools, so the roots it may list include the read-only ones.
  it('list_workspace_files outside every root: allowed_paths has the read-only roots too', async () => {
    const guard = createGuard({
      disclosure: 'full',
      plugins: [
        folderRules({
          dialect: 'folderguard',
          source: '{"readPaths": ["/ws/learnings"], "writePaths": ["/ws/execution"]}',
        }),
      ],
    });
    const d = await guard.check({ tool: 'list_workspace_files', args: { path: '/etc' } }, ctx);
    expect(d.action).toBe('deny');
    expect(d.envelope?.operation).toBe('list');
    expect(d.envelope?.allowed_paths).toEqual(expect.arrayContaining(['/ws/learnings', '/ws/execution']));
    expect(d.envelope?.error).toMatch(/\/ws\/learnings/);
    // The same roots a read is told about.
    const r = await guard.check({ tool: 'read_workspace_file', args: { path: '/etc/x' } }, ctx);
    expect([...(d.envelope?.allowed_paths ?? [])].sort()).toEqual(
      [...(r.envelope?.allowed_paths ?? [])].sort(),
    );
  });
});
