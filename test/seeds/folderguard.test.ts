import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { describe, expect, it } from 'vitest';

// Seed 000 (Folder Guard), through the public API.
const ws = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fg-')));
mkdirSync(join(ws, 'learnings'));
mkdirSync(join(ws, 'execution'));
const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: '/home/u', env: {} };

function guardFor(readPaths: string[], writePaths: string[], log?: (line: string) => void) {
  return createGuard({
    plugins: [
      folderRules({
        dialect: 'folderguard',
        file: 'fg.json',
        source: JSON.stringify({ readPaths, writePaths }),
        ...(log ? { log } : {}),
      }),
    ],
  });
}

describe('seed 000: Folder Guard', () => {
  it('"Logs: 🔒 Folder guard enabled - Read paths: [...], Write paths: [...]" and "🔓 Folder guard disabled (empty read/write paths)"', () => {
    const lines: string[] = [];
    guardFor([`${ws}/learnings`], [`${ws}/execution`], (l) => lines.push(l));
    guardFor([], [], (l) => lines.push(l));
    expect(lines).toEqual([
      `🔒 Folder guard enabled - Read paths: [${ws}/learnings], Write paths: [${ws}/execution]`,
      '🔓 Folder guard disabled (empty read/write paths)',
    ]);
  });

  it('"Empty string or \\".\\": Normalized to workspace root" — read, not denied', async () => {
    const guard = guardFor([ws], []);
    for (const path of ['', '.'])
      expect((await guard.check({ tool: 'list_workspace_files', args: { path } }, ctx)).action, path).toBe(
        'allow',
      );
    const narrow = guardFor([`${ws}/learnings`], []);
    const d = await narrow.check({ tool: 'read_workspace_file', args: { filepath: '' } }, ctx);
    expect(d.action).toBe('deny'); // the root is outside readPaths: judged, not waved through
    expect(d.reasons[0]?.code).toBe('PATH_DENIED');
  });

  it('"args[paramName] = normalizedPath": an allowed call carries its path arguments as the paths checked', async () => {
    const guard = guardFor([`${ws}/learnings`], [`${ws}/execution`]);
    const d = await guard.check(
      { tool: 'update_workspace_file', args: { filepath: 'execution/results.json', content: '{}' } },
      ctx,
    );
    expect(d.action).toBe('allow');
    expect(d.args).toEqual({ filepath: join(ws, 'execution', 'results.json'), content: '{}' });
    const denied = await guard.check(
      { tool: 'update_workspace_file', args: { filepath: 'learnings/x' } },
      ctx,
    );
    expect(denied.action).toBe('deny');
    expect(denied.args).toBeUndefined();
  });

  it('"path \'%s\' is not within any of the allowed paths: %v" is the rejection wording', async () => {
    const guard = guardFor([`${ws}/learnings`], [`${ws}/execution`]);
    const d = await guard.check({ tool: 'update_workspace_file', args: { filepath: '/etc/passwd' } }, ctx);
    expect(d.reasons[0]?.reason).toBe(
      `path '/etc/passwd' is not within any of the allowed paths: [${ws}/execution ${ws}/Downloads]`,
    );
  });

  it('"✅ **SPECIAL ACCESS:** The \'Downloads/\' folder is always accessible." in the enhanced description', () => {
    const guard = guardFor([`${ws}/learnings`], [`${ws}/execution`]);
    const [tool] = guard.describeTools(
      [{ name: 'write_workspace_file', description: 'Write a file.', inputSchema: { type: 'object' } }],
      { cwd: ws, workspace: ws, home: '/home/u' },
    );
    const d = tool!.description ?? '';
    expect(d).toContain(`⚠️ **IMPORTANT:** You can ONLY write to these directories:\n${ws}/execution\n`);
    expect(d).toContain("✅ **SPECIAL ACCESS:** The 'Downloads/' folder is always accessible.");
    expect(d).toContain('Use ONLY these directories (or Downloads/) when calling this tool.');
    expect(d).not.toContain(`${ws}/Downloads\n`);
  });
});
