import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { auditLog, readLines, verifyChain } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

async function trail(n: number): Promise<string> {
  const root = tempDir();
  const file = join(root, 'violations.log');
  const audit = auditLog({ file });
  const guard = createGuard({ plugins: [workspacePolicy(), audit] });
  for (let i = 0; i < n; i++)
    await guard.check({ tool: 'write_file', args: { path: `/etc/f${i}` } }, context(root));
  audit.close();
  return file;
}

function edit(file: string, fn: (lines: string[]) => string[]): void {
  const lines = readFileSync(file, 'utf8').split('\n').slice(0, -1);
  writeFileSync(file, `${fn(lines).join('\n')}\n`);
}

describe('verifyChain: tamper evidence', () => {
  it('an untouched trail verifies from genesis', async () => {
    expect(await verifyChain(await trail(5))).toMatchObject({ ok: true, records: 5, fromGenesis: true });
  });

  it('an edited record is the first broken link', async () => {
    const file = await trail(5);
    edit(file, (l) => l.map((x, i) => (i === 2 ? x.replace('"critical"', '"low"') : x)));
    expect(await verifyChain(file)).toMatchObject({
      ok: false,
      broken: { file, line: 3, reason: expect.stringMatching(/edited/) },
    });
  });

  it('a removed record breaks the next link', async () => {
    const file = await trail(5);
    edit(file, (l) => l.filter((_, i) => i !== 1));
    expect(await verifyChain(file)).toMatchObject({
      ok: false,
      broken: { line: 2, reason: expect.stringMatching(/removed/) },
    });
  });

  it('reordered records break the chain', async () => {
    const file = await trail(4);
    edit(file, (l) => [l[0]!, l[2]!, l[1]!, l[3]!]);
    expect((await verifyChain(file)).broken?.line).toBe(2);
  });

  it('a line without chain fields is reported', async () => {
    const file = await trail(2);
    edit(file, (l) => [...l, '{"level":"SECURITY_VIOLATION"}']);
    expect(await verifyChain(file)).toMatchObject({
      ok: false,
      broken: { line: 3, reason: expect.stringMatching(/no chain fields/) },
    });
  });

  it('a forged record with a recomputed own hash still breaks on prev', async () => {
    const file = await trail(3);
    edit(file, (l) => [l[0]!, l[2]!]);
    expect((await verifyChain(file)).ok).toBe(false);
  });
});

describe('readLines bounds a line (issue 14)', () => {
  it('a line over the limit is reported by number and size and skipped; the lines around it are read', async () => {
    const file = join(tempDir(), 'lines.log');
    writeFileSync(file, `short\n${'x'.repeat(5000)}\nafter é\r\n\ntail`);
    const got = [];
    for await (const l of readLines(file, 1000)) got.push(l);
    expect(got).toEqual([
      { file, line: 1, text: 'short' },
      { file, line: 2, text: '', oversize: 5000 },
      { file, line: 3, text: 'after é' },
      { file, line: 5, text: 'tail', unterminated: true },
    ]);
  });
});
