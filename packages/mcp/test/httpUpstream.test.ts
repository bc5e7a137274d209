import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

it('guards a Streamable-HTTP server reached by URL (real HTTP on 127.0.0.1)', async () => {
  const ws = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-http-')));
  try {
    const script = fileURLToPath(new URL('./fixtures/httpUpstream.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script, ws], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    const o = JSON.parse(stdout) as {
      tools: Array<{ description: string }>;
      allowed: { isError?: boolean; content: Array<{ text: string }> };
      denied: { isError: boolean; content: Array<{ text: string }> };
      seen: string[];
    };
    expect(o.tools[0]?.description).toContain(`Allowed paths: ${ws}`);
    expect(o.allowed.isError).toBeFalsy();
    expect(o.allowed.content[0]?.text).toBe(`contents of ${ws}/a.txt`);
    expect(o.denied.isError).toBe(true);
    expect(JSON.parse(o.denied.content[0]!.text)).toMatchObject({ code: 'PATH_DENIED', path: '/etc/passwd' });
    // The server saw the allowed call only.
    expect(o.seen).toEqual([`${ws}/a.txt`]);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
