import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSession, saveSession } from '../src/sessionFile.js';

// A prompt on a `list` access (ls, list_directory) can be answered with a standing grant: the saved session
// must load again, not be thrown away as corrupt on the next start.
let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'tg-approvals-list-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('list grants', () => {
  it('a saved list grant loads again', async () => {
    const grant = {
      op: 'list' as const,
      scope: 'subtree' as const,
      path: '/ws/secrets',
      createdAt: 1,
      by: 'tty',
    };
    await saveSession(dir, {
      version: 1,
      sessionId: 's',
      cancelled: false,
      confirmations: 0,
      grants: [grant],
    });
    const loaded = await loadSession(dir, 's');
    expect(loaded.kind).toBe('loaded');
    if (loaded.kind === 'loaded') expect(loaded.data.grants).toEqual([grant]);
  });

  it('an unknown op is still corrupt', async () => {
    const grant = { op: 'exec', scope: 'path', path: '/ws/x', createdAt: 1, by: 'tty' } as never;
    await saveSession(dir, {
      version: 1,
      sessionId: 't',
      cancelled: false,
      confirmations: 0,
      grants: [grant],
    });
    const loaded = await loadSession(dir, 't');
    expect(loaded.kind).toBe('corrupt');
    if (loaded.kind === 'corrupt') expect(loaded.problem).toMatch(/op must be "read", "write" or "list"/);
  });
});
