import { createGuard, type ToolDescriptor } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { folderRules } from '../src/index.js';

const tools: ToolDescriptor[] = [
  { name: 'terminal', description: 'Run a command.' },
  { name: 'read_file', description: 'Read a file.' },
  { name: 'write_file', description: 'Write a file.' },
  { name: 'code_execution', description: 'Run Python.' },
  { name: 'web_search', description: 'Search the web.' },
];
const dctx = { workspace: '/ws', home: '/home/u', cwd: '/ws' };
const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };

describe("Hermes' disabled tools are not offered in tools/list", () => {
  // Seed 003: "when a profile declares tools.terminal.enabled: true, the agent gets unrestricted shell access"
  // — a tool its profile does not enable is not the agent's: describeTools (the gateway's tools/list) drops it.
  it('enabled: false hides the tool; the others keep their schemas unchanged', async () => {
    const guard = createGuard({
      plugins: [
        folderRules({
          dialect: 'hermes',
          source: [
            'tools:',
            '  terminal: { enabled: false }',
            '  code_execution: { enabled: false }',
            '  file: { enabled: true, allowed_write_paths: [/ws] }',
          ].join('\n'),
        }),
      ],
    });
    const out = guard.describeTools(tools, dctx);
    expect(out.map((t) => t.name)).toEqual(['read_file', 'write_file', 'web_search']);
    // "No changes to tool schemas seen by the LLM": what is shown is shown as given.
    expect(out).toEqual(tools.filter((t) => ['read_file', 'write_file', 'web_search'].includes(t.name)));
    // A host that calls a hidden tool anyway is still refused.
    const d = await guard.check({ tool: 'terminal', args: { command: 'ls' } }, ctx);
    expect(d.envelope?.code).toBe('TOOL_DISABLED');
  });

  it('a disabled file tool hides every file tool, a disabled terminal only the shell', () => {
    const guard = createGuard({
      plugins: [folderRules({ dialect: 'hermes', source: 'tools:\n  file: { enabled: false }\n' })],
    });
    expect(guard.describeTools(tools, dctx).map((t) => t.name)).toEqual([
      'terminal',
      'code_execution',
      'web_search',
    ]);
  });

  it('a profile that disables nothing lists every tool', () => {
    const guard = createGuard({
      plugins: [folderRules({ dialect: 'hermes', source: 'tools:\n  terminal: { allowed_paths: [/ws] }\n' })],
    });
    expect(guard.describeTools(tools, dctx)).toEqual(tools);
  });
});
