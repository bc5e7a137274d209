import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { argPaths, secretFiles } from './secretFiles.js';

/** Runs the example and checks its own output; returns the printed lines. */
export async function main(): Promise<string[]> {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'tg-example-')));
  const lines: string[] = [];
  try {
    mkdirSync(join(ws, 'test', 'fixtures'), { recursive: true });
    writeFileSync(join(ws, '.env'), 'TOKEN=1');
    writeFileSync(join(ws, 'test', 'fixtures', 'id_rsa'), 'fake');
    symlinkSync(join(ws, '.env'), join(ws, 'notes.txt')); // an innocent name for a secret
    const guard = createGuard({
      plugins: [argPaths(), secretFiles({ except: [join(ws, 'test', 'fixtures')] })],
    });
    const ctx = { sessionId: 'example', agentId: 'example', cwd: ws, workspace: ws, home: ws, env: {} };
    const cases: Array<[string, Record<string, unknown>, 'allow' | 'deny']> = [
      ['read_file', { path: 'README.md' }, 'allow'],
      ['read_file', { path: '.env' }, 'deny'],
      ['read_file', { path: 'notes.txt' }, 'deny'],
      ['read_file', { path: 'test/fixtures/id_rsa' }, 'allow'],
      ['write_file', { file_path: `${ws}/sub/../.env` }, 'deny'],
    ];
    for (const [tool, args, expected] of cases) {
      const d = await guard.check({ tool, args }, ctx);
      lines.push(
        `${d.action.padEnd(5)} ${tool} ${JSON.stringify(args).replaceAll(ws, '<ws>')} ${d.reasons[0]?.reason ?? ''}`,
      );
      assert.equal(d.action, expected, `${tool} ${JSON.stringify(args)}`);
    }
    return lines;
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await main()) console.log(line);
  console.log('example verified');
}
