import { createGuard, type ToolDescriptor } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { folderRules, loadPolicy } from '../src/index.js';

const tools: ToolDescriptor[] = [
  { name: 'read_workspace_file', description: 'Read a file.' },
  { name: 'update_workspace_file', description: 'Update a file.' },
  { name: 'web_search', description: 'Search the web.' },
];
const dctx = { workspace: '/ws', home: '/home/u', cwd: '/ws' };

describe('describeTools', () => {
  it("enhances descriptions with the allowed roots (Folder Guard's block)", () => {
    const guard = createGuard({
      plugins: [
        folderRules({
          dialect: 'folderguard',
          source: '{"readPaths": ["/ws/learnings"], "writePaths": ["/ws/execution"]}',
        }),
      ],
    });
    const out = guard.describeTools(tools, dctx);
    const write = out.find((t) => t.name === 'update_workspace_file');
    expect(write?.description).toMatch(/You can ONLY write to these directories:\n\/ws\/execution/);
    expect(out.find((t) => t.name === 'read_workspace_file')?.description).toMatch(/\/ws\/learnings/);
    expect(out.find((t) => t.name === 'web_search')?.description).toBe('Search the web.');
  });

  it('is idempotent: applying it to its own output does not duplicate the block', () => {
    const guard = createGuard({
      plugins: [
        folderRules({ dialect: 'folderguard', source: '{"readPaths": [], "writePaths": ["/ws/x"]}' }),
      ],
    });
    const once = guard.describeTools(tools, dctx);
    const twice = guard.describeTools(once, dctx);
    expect(twice).toEqual(once);
    expect(twice[1]?.description?.match(/DIRECTORY ACCESS RESTRICTIONS/g)).toHaveLength(1);
  });

  it('hides write tools when nothing is writable, keeps them otherwise', () => {
    const ro = createGuard({
      plugins: [
        folderRules({ dialect: 'folderguard', source: '{"readPaths": ["/ws/l"], "writePaths": []}' }),
      ],
    });
    expect(ro.describeTools(tools, dctx).map((t) => t.name)).toEqual(['read_workspace_file', 'web_search']);
    const off = createGuard({
      plugins: [folderRules({ dialect: 'folderguard', source: '{"readPaths": [], "writePaths": []}' })],
    });
    expect(off.describeTools(tools, dctx)).toEqual(tools);
  });

  it('learns an MCP tool from its annotations and schema', async () => {
    const policy = loadPolicy({
      dialect: 'toolgate',
      source: '{"rules": [{"pattern": "/ws/**", "access": "read"}]}',
      file: 'p.json',
    });
    const guard = createGuard({ plugins: [folderRules({ policy })] });
    guard.describeTools(
      [
        {
          name: 'fetch_doc',
          annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: { doc_path: { type: 'string' } } },
        },
        {
          name: 'stash',
          annotations: { destructiveHint: true },
          inputSchema: {
            type: 'object',
            properties: { where: { type: 'string' }, dest: { type: 'string' } },
          },
        },
      ],
      dctx,
    );
    const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };
    expect((await guard.check({ tool: 'fetch_doc', args: { doc_path: '/ws/a' } }, ctx)).action).toBe('allow');
    const stash = await guard.check({ tool: 'stash', args: { dest: '/ws/a' } }, ctx);
    expect(stash.action).toBe('deny');
    expect(stash.reasons[0]?.code).toBe('PATH_DENIED');
  });

  it('a server cannot relabel a built-in tool through annotations', async () => {
    const guard = createGuard({ plugins: [folderRules({ rules: [{ pattern: '/ws/**', access: 'read' }] })] });
    guard.describeTools(
      [
        {
          name: 'write_file',
          annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: { path: {} } },
        },
      ],
      dctx,
    );
    const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };
    expect((await guard.check({ tool: 'write_file', args: { path: '/ws/a' } }, ctx)).action).toBe('deny');
  });
});
