import { mkdtempSync, realpathSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin, Stage } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileTime } from '../src/index.js';

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'filetime-')));
  writeFileSync(join(ws, 'a.txt'), 'one\n');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

function ctx(sessionId = 's1', env: Record<string, string> = {}): CallContext {
  return { sessionId, agentId: 'a', cwd: ws, workspace: ws, home: '/home/u', env };
}

function guardWith(plugin: GuardPlugin, wolo = 'path_safety: {}') {
  return createGuard({ plugins: [folderRules({ dialect: 'wolo', source: wolo }), plugin] });
}

const read = (path: string) => ({ tool: 'read_file', args: { path } });
const write = (path: string) => ({ tool: 'write_file', args: { path, content: 'two\n' } });

/** An edit by someone else: new contents and a new mtime (a second apart, whatever the file system's clock). */
function changeOnDisk(path: string, content = 'changed elsewhere\n') {
  writeFileSync(path, content);
  const later = new Date(Date.now() + 5_000);
  utimesSync(path, later, later);
}

describe('fileTime', () => {
  it('allows a write of a file the agent read and nobody changed since', async () => {
    const guard = guardWith(fileTime());
    expect((await guard.check(read('a.txt'), ctx())).action).toBe('allow');
    expect((await guard.check(write('a.txt'), ctx())).action).toBe('allow');
  });

  it('refuses a write of a file the agent never read in this session', async () => {
    const d = await guardWith(fileTime()).check(write('a.txt'), ctx());
    expect(d.action).toBe('deny');
    expect(d.envelope?.code).toBe('FILE_CHANGED');
    expect(d.reasons[0]?.reason).toMatch(/not read in this session/);
  });

  it('refuses a write of a file changed on disk after the agent read it', async () => {
    const guard = guardWith(fileTime());
    await guard.check(read('a.txt'), ctx());
    changeOnDisk(join(ws, 'a.txt'));
    const d = await guard.check(write('a.txt'), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toMatch(/changed on disk since you last read it/);
    // Reading it again is the way out.
    await guard.check(read('a.txt'), ctx());
    expect((await guard.check(write('a.txt'), ctx())).action).toBe('allow');
  });

  it('sees a file replaced by a rename with the same size and mtime (a new inode)', async () => {
    const guard = guardWith(fileTime());
    const file = join(ws, 'a.txt');
    await guard.check(read('a.txt'), ctx());
    const t = new Date(Date.now() - 60_000);
    utimesSync(file, t, t);
    await guard.check(read('a.txt'), ctx());
    writeFileSync(join(ws, 'b.txt'), 'ONE\n');
    utimesSync(join(ws, 'b.txt'), t, t);
    rmSync(file);
    renameSync(join(ws, 'b.txt'), file);
    expect((await guard.check(write('a.txt'), ctx())).action).toBe('deny');
  });

  it('allows creating a file that does not exist', async () => {
    expect((await guardWith(fileTime()).check(write('new.txt'), ctx())).action).toBe('allow');
  });

  it('a read refused after this plugin judged it does not count as read', async () => {
    // Denies every read_file after fileTime's own tap has run: the read's decision is a deny.
    const refuseReads: GuardPlugin = {
      name: 'refuse-reads',
      apply(hooks) {
        hooks.beforeToolCall.tap({ stage: Stage.POLICY + 200 }, (call) =>
          call.tool === 'read_file'
            ? { action: 'deny', code: 'PATH_DENIED', reason: 'no reads today' }
            : undefined,
        );
      },
    };
    const guard = createGuard({
      plugins: [folderRules({ dialect: 'wolo', source: 'path_safety: {}' }), fileTime(), refuseReads],
    });
    expect((await guard.check(read('a.txt'), ctx())).action).toBe('deny');
    expect((await guard.check(write('a.txt'), ctx())).envelope?.code).toBe('FILE_CHANGED');
  });

  it("keeps sessions apart: one session's read does not let another write", async () => {
    const guard = guardWith(fileTime());
    await guard.check(read('a.txt'), ctx('s1'));
    expect((await guard.check(write('a.txt'), ctx('s2'))).action).toBe('deny');
    expect((await guard.check(write('a.txt'), ctx('s1'))).action).toBe('allow');
  });

  it("accepts the agent's own write: a hook host (no afterToolCall) stamps it at the next call", async () => {
    const guard = guardWith(fileTime());
    const file = join(ws, 'a.txt');
    await guard.check(read('a.txt'), ctx());
    expect((await guard.check(write('a.txt'), ctx())).action).toBe('allow');
    changeOnDisk(file, 'the agent wrote this\n'); // the host runs the write
    expect((await guard.check(write('a.txt'), ctx())).action).toBe('allow');
    changeOnDisk(file, 'and this\n'); // and the second one
    await guard.check({ tool: 'web_search', args: { query: 'x' } }, ctx()); // the session's next call
    changeOnDisk(file, 'someone else wrote this\n');
    expect((await guard.check(write('a.txt'), ctx())).action).toBe('deny');
  });

  it('a wrapped tool is stamped when it ends (afterToolCall)', async () => {
    const guard = guardWith(fileTime());
    const file = join(ws, 'a.txt');
    const readTool = guard.wrap('read_file', () => 'one\n');
    const writeTool = guard.wrap('write_file', (args: { path: string; content: string }) => {
      changeOnDisk(args.path, args.content);
      return 'ok';
    });
    await readTool({ path: 'a.txt' }, ctx());
    expect(await writeTool({ path: file, content: 'x\n' }, ctx())).toBe('ok');
    expect(await writeTool({ path: file, content: 'y\n' }, ctx())).toBe('ok');
    changeOnDisk(file, 'someone else\n');
    expect(await writeTool({ path: file, content: 'z\n' }, ctx())).toMatchObject({ code: 'FILE_CHANGED' });
  });

  describe('shell writes', () => {
    // Stands in for @toolgate/shell: `sed -i s/a/b/ <path>` as the shell plugin reports it.
    const sedInPlace: GuardPlugin = {
      name: 'fake-shell',
      apply(hooks) {
        hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
          if (call.tool !== 'bash' || typeof call.args.file !== 'string') return accesses;
          state.claim('shell');
          return [...accesses, state.access(call.args.file, 'write', { origin: 'shell:sed:argv' })];
        });
      },
    };
    const sed = (file: string) => ({ tool: 'bash', args: { command: `sed -i s/a/b/ ${file}`, file } });
    const guard = (options = {}) =>
      createGuard({
        plugins: [folderRules({ dialect: 'wolo', source: 'path_safety: {}' }), sedInPlace, fileTime(options)],
      });

    it('are not checked by default (wolo checks its write, edit and multiedit tools), nor count as read', async () => {
      const g = guard();
      expect((await g.check(sed('a.txt'), ctx())).action).toBe('allow');
      expect((await g.check(write('a.txt'), ctx())).envelope?.code).toBe('FILE_CHANGED');
    });

    it('are checked with shell: true', async () => {
      const g = guard({ shell: true });
      expect((await g.check(sed('a.txt'), ctx())).envelope?.code).toBe('FILE_CHANGED');
      await g.check(read('a.txt'), ctx());
      expect((await g.check(sed('a.txt'), ctx())).action).toBe('allow');
    });
  });

  it("prompts instead with onStale: 'prompt'", async () => {
    const guard = guardWith(fileTime({ onStale: 'prompt' }));
    const d = await guard.check(write('a.txt'), ctx(), { resolvePrompts: false });
    expect(d.action).toBe('prompt');
    expect(d.reasons[0]).toMatchObject({ action: 'prompt', code: 'FILE_CHANGED', plugin: 'filetime' });
  });

  describe("wolo's wild mode bypasses it", () => {
    it('wild: true (path_safety.wild_mode)', async () => {
      const guard = guardWith(fileTime({ wild: true }), 'path_safety: { wild_mode: true }');
      expect((await guard.check(write('a.txt'), ctx())).action).toBe('allow');
    });

    it('WOLO_WILD_MODE=true in the call environment', async () => {
      const guard = guardWith(fileTime());
      expect((await guard.check(write('a.txt'), ctx('s1'))).action).toBe('deny');
      expect((await guard.check(write('a.txt'), ctx('s1', { WOLO_WILD_MODE: 'true' }))).action).toBe('allow');
    });

    it('wildEnv: false ignores the environment', async () => {
      const guard = guardWith(fileTime({ wildEnv: false }));
      expect((await guard.check(write('a.txt'), ctx('s1', { WOLO_WILD_MODE: 'true' }))).action).toBe('deny');
    });
  });

  it('rejects invalid options at construction, naming the field', () => {
    expect(() => fileTime({ onStale: 'ask' as 'deny' })).toThrow(/onStale/);
    expect(() => fileTime({ wild: 'yes' as unknown as boolean })).toThrow(/wild/);
    expect(() => fileTime({ nope: 1 } as never)).toThrow(/nope/);
  });
});
