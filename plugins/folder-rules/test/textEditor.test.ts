import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { folderRules } from '../src/index.js';

// Anthropic's text editor tool (and Goose's): one tool, `command` picks the operation on `path`. It was an
// unknown tool (hidden corpus false deny: `create` in the workspace refused); a view must stay a read.
const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };
const guard = createGuard({
  plugins: [
    folderRules({
      rules: [
        { pattern: '<workspace>/**', access: 'write' },
        { pattern: '/usr/**', access: 'read' },
        { pattern: '~/.ssh/**', access: 'deny' },
      ],
      default: 'deny',
    }),
  ],
});
const edit = (tool: string, args: Record<string, unknown>) => guard.check({ tool, args }, ctx);

describe('text editor tools: the command decides the operation', () => {
  for (const tool of ['str_replace_based_edit_tool', 'str_replace_editor', 'developer__text_editor']) {
    it(tool, async () => {
      expect((await edit(tool, { command: 'create', path: '/ws/new.ts', file_text: 'x' })).action).toBe(
        'allow',
      );
      expect((await edit(tool, { command: 'view', path: '/usr/include/stdio.h' })).action).toBe('allow');
      const write = await edit(tool, {
        command: 'str_replace',
        path: '/usr/include/stdio.h',
        old_str: 'a',
        new_str: 'b',
      });
      expect(write.action).toBe('deny');
      expect(write.accesses[0]?.op).toBe('write');
      expect((await edit(tool, { command: 'view', path: '~/.ssh/id_rsa' })).action).toBe('deny');
      // an unknown command is a write (fail closed)
      expect((await edit(tool, { command: 'frobnicate', path: '/usr/include/stdio.h' })).action).toBe('deny');
    });
  }
});
