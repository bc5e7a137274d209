import { describe, expect, it } from 'vitest';
import { answerFromGrants, grantCovers, grantsFromAnswer, hostGrantCovers } from '../src/grants.js';
import { savedProblem } from '../src/sessionFile.js';
import type { Grant } from '../src/types.js';

// Host grants (NETWORK_PROMPT approved for the session): the same host and the same method only — a read
// grant never answers a write (a POST sends data), and a host grant never answers a path.

const now = 1_000;
const read: Grant = { op: 'read', scope: 'host', path: 'docs.example', createdAt: now, by: 't' };

describe('host grants', () => {
  it('answer the host with the method approved, nothing else', () => {
    expect(hostGrantCovers(read, { host: 'docs.example', method: 'read' })).toBe(true);
    expect(hostGrantCovers(read, { host: 'docs.example', method: 'write' })).toBe(false);
    expect(hostGrantCovers(read, { host: 'evil.docs.example', method: 'read' })).toBe(false);
    expect(hostGrantCovers(read, { host: 'docs.example.evil', method: 'read' })).toBe(false);
    // A host grant is no path grant, and a path grant no host grant.
    const item = {
      op: 'read' as const,
      scope: 'path' as const,
      raw: 'docs.example',
      realPath: 'docs.example',
      code: 'X',
      reason: 'r',
    };
    expect(grantCovers(read, item)).toBe(false);
    const sub: Grant = { op: 'read', scope: 'subtree', path: '/', createdAt: now, by: 't' };
    expect(hostGrantCovers(sub, { host: 'docs.example', method: 'read' })).toBe(false);
  });

  it('a call is answered only when every host and every path is covered; uses are counted', () => {
    const limited: Grant = { ...read, usesLeft: 1 };
    const grants = [limited];
    expect(
      answerFromGrants(grants, [], now, [
        { host: 'docs.example', method: 'read' },
        { host: 'other.example', method: 'read' },
      ]),
    ).toBeUndefined();
    expect(answerFromGrants(grants, [], now, [{ host: 'docs.example', method: 'read' }])).toEqual([limited]);
    expect(limited.usesLeft).toBe(0);
    expect(answerFromGrants(grants, [], now, [{ host: 'docs.example', method: 'read' }])).toBeUndefined();
  });

  it('an answer for more than once grants each host with its method; "once" grants nothing', () => {
    const hosts = [
      { host: 'docs.example', method: 'read' as const },
      { host: 'api.example', method: 'write' as const },
    ];
    expect(
      grantsFromAnswer({ approved: true, grant: 'directory', ttlMs: 60_000 }, [], {}, now, 't', hosts),
    ).toEqual([
      { op: 'read', scope: 'host', path: 'docs.example', createdAt: now, by: 't', expiresAt: now + 60_000 },
      { op: 'write', scope: 'host', path: 'api.example', createdAt: now, by: 't', expiresAt: now + 60_000 },
    ]);
    expect(grantsFromAnswer({ approved: true, grant: 'once' }, [], {}, now, 't', hosts)).toEqual([]);
  });

  it('a stored session may hold host grants; a malformed one is refused', () => {
    const saved = (g: unknown) => ({
      version: 1,
      sessionId: 's',
      cancelled: false,
      confirmations: 0,
      grants: [g],
    });
    expect(savedProblem(saved(read), 's')).toBeUndefined();
    expect(savedProblem(saved({ ...read, path: 'Docs.Example' }), 's')).toMatch(/normalised host/);
    expect(savedProblem(saved({ ...read, path: '/etc' }), 's')).toMatch(/normalised host/);
    expect(savedProblem(saved({ ...read, op: 'list' }), 's')).toMatch(/"read" or "write"/);
  });
});
