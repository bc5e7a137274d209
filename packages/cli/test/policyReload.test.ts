import { mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, queue } from '@toolgate/approvals';
import { auditLog } from '@toolgate/audit-log';
import { type CallContext, createGuard, type Guard } from '@toolgate/core';
import { type CompiledPolicy, folderRules, loadPolicy } from '@toolgate/folder-rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filePolicySource,
  type PolicyLoadError,
  type PolicyVersion,
} from '../src/config/filePolicySource.js';
import { httpPolicySource } from '../src/config/httpPolicySource.js';
import { reloadingGuard } from '../src/reloadingGuard.js';

let root: string;
let ws: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-reload-')));
  ws = join(root, 'ws');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const READ_ONLY = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: read }\n';
const WRITABLE = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n';
const PROMPT = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: prompt }\n';
const BROKEN = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: sometimes }\n';

const ctx = (): CallContext => ({
  sessionId: 's',
  agentId: 'a',
  cwd: ws,
  workspace: ws,
  home: root,
  env: {},
});
const until = async (cond: () => boolean, ms = 8_000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return cond();
};
const compile = (file: string) => async (): Promise<PolicyVersion<CompiledPolicy>> => {
  const policy = loadPolicy({ dialect: 'toolgate', file });
  return { policy, hash: policy.hash };
};

describe('filePolicySource', () => {
  it('a changed file is a new version; a rename over it too; a broken one keeps the last good and says so', async () => {
    const file = join(root, 'policy.yaml');
    writeFileSync(file, READ_ONLY);
    const source = await filePolicySource(file, { load: compile(file), debounceMs: 30, pollMs: 200 });
    try {
      const versions: string[] = [];
      const errors: PolicyLoadError[] = [];
      source.subscribe((v) => versions.push(v.hash));
      source.onError((e) => errors.push(e));
      const v1 = source.current().hash;
      writeFileSync(file, WRITABLE);
      expect(await until(() => versions.length === 1)).toBe(true);
      const v2 = source.current().hash;
      expect(v2).not.toBe(v1);
      // Editors and checkouts replace the file by a rename.
      writeFileSync(`${file}.tmp`, PROMPT);
      renameSync(`${file}.tmp`, file);
      expect(await until(() => versions.length === 2)).toBe(true);
      const v3 = source.current().hash;
      writeFileSync(file, BROKEN);
      expect(await until(() => errors.length > 0)).toBe(true);
      expect(source.current().hash).toBe(v3);
      expect(errors[0]?.message).toMatch(
        new RegExp(
          `policy .*policy\\.yaml failed to load; still enforcing the last good version ${v3}: .*access`,
        ),
      );
      // Twin: the same bytes written again are no new version (same hash), and fixing it is one.
      writeFileSync(file, PROMPT);
      await source.reload();
      expect(source.current().hash).toBe(v3);
      writeFileSync(file, READ_ONLY);
      expect(await until(() => source.current().hash === v1)).toBe(true);
      expect(versions).toEqual([v2, v3, v1]);
    } finally {
      source.close();
    }
  });

  it('a policy that does not load at start is an error (a host does not start without one)', async () => {
    const file = join(root, 'broken.yaml');
    writeFileSync(file, BROKEN);
    await expect(filePolicySource(file, { load: compile(file) })).rejects.toThrow(/access/);
  });
});

describe('reloadingGuard', () => {
  it('swaps between calls, never during one; each audit record names the version that judged its call', async () => {
    const file = join(root, 'guarded.yaml');
    const trail = join(root, 'trail.jsonl');
    writeFileSync(file, PROMPT);
    const q = queue();
    // Shared by every version, as the CLI shares them: one trail, one approvals plugin.
    let guard: ReturnType<typeof reloadingGuard> | undefined;
    const audit = auditLog({ file: trail, level: 'all', policyHash: (_d, call) => guard?.hashOf(call) });
    const plugin = approvals({ strategy: q, timeoutMs: 10_000 });
    const build = async (): Promise<PolicyVersion<Guard>> => {
      const policy = loadPolicy({ dialect: 'toolgate', file });
      return {
        policy: createGuard({ plugins: [folderRules({ policy }), plugin, audit] }),
        hash: policy.hash,
      };
    };
    const source = await filePolicySource(file, { load: build, debounceMs: 30, pollMs: 200 });
    guard = reloadingGuard(source);
    const changed: unknown[] = [];
    guard.events.on('policy-changed', (e) => changed.push(e));
    try {
      const v1 = guard.hash;
      // A call of version 1 waits for a person…
      const waiting = guard.check({ tool: 'write_file', args: { path: join(ws, 'a.txt') } }, ctx());
      expect(await until(() => q.pending().length === 1)).toBe(true);
      // …while the policy becomes read-only.
      writeFileSync(file, READ_ONLY);
      expect(await until(() => guard?.hash !== v1)).toBe(true);
      const v2 = guard.hash;
      // A new call is judged by version 2 at once: a write is denied, no question.
      const after = await guard.check({ tool: 'write_file', args: { path: join(ws, 'b.txt') } }, ctx());
      expect(after.action).toBe('deny');
      expect(q.pending().length).toBe(1);
      // The call that started under version 1 ends under version 1.
      q.respond(q.pending()[0]!.id, { approved: true });
      expect((await waiting).action).toBe('allow');
      const records = readFileSync(trail, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { attemptedPath: string; policyHash?: string });
      expect(records.find((r) => r.attemptedPath.endsWith('a.txt'))?.policyHash).toBe(v1);
      expect(records.find((r) => r.attemptedPath.endsWith('b.txt'))?.policyHash).toBe(v2);
      expect(changed).toEqual([{ hash: v2 }]);
    } finally {
      guard.close();
      source.close();
      audit.close();
    }
  });
});

describe('httpPolicySource', () => {
  let server: Server;
  let body = READ_ONLY;
  let status = 200;
  let requests = 0;
  let notModified = 0;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests += 1;
      if (status !== 200) {
        res.writeHead(status).end('down');
        return;
      }
      const tag = `"${Buffer.from(body).toString('base64url').slice(-16)}-${body.length}"`;
      if (req.headers['if-none-match'] === tag) {
        notModified += 1;
        res.writeHead(304).end();
        return;
      }
      res.writeHead(200, { etag: tag, 'content-type': 'application/yaml' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/policy.yaml`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('polls with the ETag (unchanged: 304, nothing compiled); a new body is a new version; failures keep the last good', async () => {
    let compiled = 0;
    const source = await httpPolicySource(url, {
      intervalMs: 60_000,
      load: async (text) => {
        compiled += 1;
        const policy = loadPolicy({ dialect: 'toolgate', file: 'policy.yaml', source: text });
        return { policy, hash: policy.hash };
      },
    });
    const errors: PolicyLoadError[] = [];
    source.onError((e) => errors.push(e));
    try {
      const v1 = source.current().hash;
      await source.reload();
      expect(notModified).toBe(1);
      expect(compiled).toBe(1);
      body = WRITABLE;
      await source.reload();
      const v2 = source.current().hash;
      expect(v2).not.toBe(v1);
      body = BROKEN;
      await source.reload();
      expect(source.current().hash).toBe(v2);
      expect(errors.at(-1)?.message).toMatch(/still enforcing the last good version/);
      status = 503;
      await source.reload();
      expect(source.current().hash).toBe(v2);
      expect(errors.at(-1)?.message).toMatch(/HTTP 503/);
      expect(requests).toBe(5);
    } finally {
      source.close();
    }
  });
});
