import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN } from './support/cli.js';

const run = promisify(execFile);

describe('toolgate demo (the built CLI, what `pnpm demo` runs)', () => {
  it('runs the scripted session through the gateway and the real filesystem server, prints the table and the audit summary, exits 0', async () => {
    const started = Date.now();
    const { stdout } = await run(process.execPath, [BIN, 'demo'], { timeout: 20_000 });
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(20);
    const rows = stdout.split('\n');
    const rowFor = (what: string) => rows.find((r) => r.includes(what)) ?? '';
    expect(stdout).toContain('tools/list: 14 tools shown; descriptions carry the allowed roots: yes');
    expect(rowFor('read in the project')).toMatch(/^ALLOW .*ran: # demo project/);
    expect(rowFor('write in the project')).toMatch(/^ALLOW .*ran: Successfully wrote/);
    for (const what of [
      'SSH key',
      '.env inside the project',
      'traversal with ..',
      'symlink escape',
      'move out of the project',
      'one bad path in a batch',
    ]) {
      expect(rowFor(what)).toMatch(/^DENY .*PATH_DENIED.*blocked, envelope to model/);
    }
    expect(rowFor('relative path')).toMatch(/^DENY .*PATH_UNCERTAIN/);
    expect(rowFor('prompt, approved')).toMatch(/^ALLOW \(asked\) .*ran: Successfully wrote/);
    expect(rowFor('prompt, declined')).toMatch(/^DENY \(asked\) .*PROMPT_DENIED/);
    expect(rowFor('shell in the project')).toMatch(/^ALLOW /);
    expect(rowFor('shell exfiltration')).toMatch(/^DENY .*PATH_DENIED/);
    expect(stdout).toMatch(/audit trail: 15 records \(allow 6, deny 9\).*hash chain: intact/);
  });
});
