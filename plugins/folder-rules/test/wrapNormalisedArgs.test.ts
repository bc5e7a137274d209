import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { folderRules } from '../src/index.js';

const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };

describe("Folder Guard's wrap runs the tool with the checked arguments", () => {
  // Seed 000: "Validated paths passed to original tool executor" — `args[paramName] = normalizedPath`, then
  // `return originalExecutor(ctx, args)`.
  it('a wrapped tool receives the normalised path, not the raw one', async () => {
    const guard = createGuard({
      plugins: [
        folderRules({ dialect: 'folderguard', source: '{"readPaths": [], "writePaths": ["/ws/execution"]}' }),
      ],
    });
    const seen: unknown[] = [];
    const read = guard.wrap('read_workspace_file', (args: { path: string }) => {
      seen.push(args.path);
      return 'ok';
    });
    expect(await read({ path: './execution//a.txt' }, ctx)).toBe('ok');
    expect(seen).toEqual(['/ws/execution/a.txt']);
  });

  it('a denied call never runs the tool', async () => {
    const guard = createGuard({
      plugins: [
        folderRules({ dialect: 'folderguard', source: '{"readPaths": [], "writePaths": ["/ws/execution"]}' }),
      ],
    });
    let ran = false;
    const read = guard.wrap('read_workspace_file', () => {
      ran = true;
    });
    const out = (await read({ path: '/etc/passwd' }, ctx)) as { code?: string };
    expect(ran).toBe(false);
    expect(out.code).toBe('PATH_DENIED');
  });
});
