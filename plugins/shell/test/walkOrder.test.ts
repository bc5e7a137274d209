import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../src/index.js';
import { context } from './programs/envJudge.js';

// What a recursive access meets is unknown only when the line may write into its subtree *before* it runs.
const ws = mkdtempSync(join(tmpdir(), 'tg-order-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
mkdirSync(join(ws, 'node_modules/x'), { recursive: true });
mkdirSync(join(ws, 'other'), { recursive: true });
mkdirSync(join(ws, 'dist'), { recursive: true });
writeFileSync(join(ws, 'other/a.txt'), 'a');
writeFileSync(join(ws, 'dist/a.txt'), 'a');

const unknownWalks = (cmd: string) =>
  extractAccesses(cmd, context(ws))
    .accesses.filter((a) => a.unknownContents !== undefined)
    .map((a) => `${a.op}* ${a.realPath?.slice(ws.length + 1)}`);

describe('a walk is unknown only when the line may write beneath it first', () => {
  it('a later command does not make an earlier walk unknown (false denies before)', () => {
    expect(unknownWalks('rm -rf node_modules && npm install')).toEqual([]);
    expect(unknownWalks('tar czf /tmp/a.tgz other && cp -r dist other')).toEqual([]);
  });
  it('a removal cannot bring names in (rm -rf dist && cp -r other dist)', () => {
    expect(unknownWalks('rm -rf dist && cp -r other dist')).toEqual([]);
  });
  it('an earlier copy into the subtree still makes it unknown (attack)', () => {
    expect(unknownWalks('cp -r other/ dist/ && tar czf /tmp/a.tgz dist')).toContain('read* dist');
  });
  it('a background job, a pipeline or a loop may run in another order (attacks)', () => {
    expect(unknownWalks('tar czf /tmp/a.tgz dist & cp -r other dist')).toContain('read* dist');
    expect(unknownWalks('tar czf - dist | cp -r other dist')).toContain('read* dist');
    expect(unknownWalks('for i in 1 2; do tar czf /tmp/a$i.tgz dist; cp -r other dist; done')).toContain(
      'read* dist',
    );
    expect(unknownWalks('while true; do grep -r x dist; cp -r other dist; done')).toContain('read* dist');
  });
  it('find -exec and xargs run their command during the walk (attack)', () => {
    expect(unknownWalks('find dist -exec cp -r other {} \\;')).not.toEqual([]);
  });
});
