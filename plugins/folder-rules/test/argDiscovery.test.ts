import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FolderRulesOptions, folderRules, loadPolicy } from '../src/index.js';

// Issue 17, item 1: every argument of every tool. The bug: path arguments nested in objects or arrays, or
// named other than the standard list, were never checked (the MCP gateway forwarded batch_write
// {ops: [{path: "/root/.ssh/authorized_keys"}]} and the server wrote the file). Real files in a temp dir.
let root: string;
let ws: string;
let home: string;
let ctx: CallContext;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-args-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(root, 'ro'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), '');
  writeFileSync(join(ws, 'src', 'a.ts'), '');
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: {} };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const RULES: FolderRulesOptions['rules'] = [
  { pattern: '<workspace>/**', access: 'write' },
  { pattern: `${'/'}**/ro/**`, access: 'read' },
  { pattern: '~/.ssh/**', access: 'deny' },
];

function guardOf(extra: Partial<FolderRulesOptions> = {}, plugins: GuardPlugin[] = []) {
  return createGuard({ plugins: [...plugins, folderRules({ rules: RULES, default: 'deny', ...extra })] });
}
const check = (g: ReturnType<typeof guardOf>, tool: string, args: Record<string, unknown>) =>
  g.check({ tool, args }, ctx, { resolvePrompts: false });

describe('nested and oddly named path arguments', () => {
  it('the gateway repro: batch_write {ops: [{path: ~/.ssh/authorized_keys}]} is denied', async () => {
    const g = guardOf();
    const d = await check(g, 'batch_write', {
      ops: [{ path: '~/.ssh/authorized_keys', content: 'ssh-rsa AAA' }],
    });
    expect(d.action).toBe('deny');
    expect(d.accesses.map((a) => a.origin)).toContain('folder-rules:args.ops[0].path');
    // Declared in the policy, the same call is judged by the rules: the key file is denied by its rule…
    const declared = guardOf({ tools: { batch_write: { op: 'write', paths: ['ops[].path'] } } });
    const denied = await check(declared, 'batch_write', {
      ops: [{ path: 'src/x' }, { path: '~/.ssh/authorized_keys' }],
    });
    expect(denied.reasons[0]?.code).toBe('PATH_DENIED');
    expect(denied.reasons[0]?.access?.realPath).toBe(join(home, '.ssh', 'authorized_keys'));
    // …and its benign twin, every op inside the workspace, is allowed.
    const twin = await check(declared, 'batch_write', { ops: [{ path: 'src/x', content: '/etc/passwd' }] });
    expect(twin.action).toBe('allow');
  });

  it('move_file {source_path, dest_path} and move_workspace_file {source_filepath, destination_filepath}', async () => {
    const g = guardOf();
    for (const [tool, from, to] of [
      ['move_file', 'source_path', 'dest_path'],
      ['move_workspace_file', 'source_filepath', 'destination_filepath'],
      ['file_move', 'sourceFile', 'targetFile'],
    ] as const) {
      const out = await check(g, tool, { [from]: 'src/a.ts', [to]: '~/.ssh/authorized_keys' });
      expect(out.action, `${tool} into ~/.ssh`).toBe('deny');
      const steal = await check(g, tool, { [from]: '~/.ssh/authorized_keys', [to]: 'src/k' });
      expect(steal.action, `${tool} out of ~/.ssh`).toBe('deny');
      const twin = await check(g, tool, { [from]: 'src/a.ts', [to]: 'src/b.ts' });
      expect(twin.action, `${tool} inside the workspace`).toBe('allow');
      // A move removes its source: the source is a write, on the link itself.
      const src = twin.accesses.find((a) => a.origin.endsWith(from));
      expect(src?.op).toBe('write');
      expect(src?.onLink).toBe(true);
    }
  });

  it('a copy reads its source and writes its destination, whatever the names', async () => {
    const g = guardOf();
    const d = await check(g, 'copy_file', {
      source_filepath: join(root, 'ro', 'x'),
      destination_path: 'src/x',
    });
    expect(d.action).toBe('allow');
    expect(d.accesses.map((a) => a.op).sort()).toEqual(['read', 'write']);
    const into = await check(g, 'copy_file', {
      source_filepath: 'src/a.ts',
      destination_path: join(root, 'ro', 'x'),
    });
    expect(into.action).toBe('deny');
  });

  it('known tools: non-standard names are checked (tool_image_analyze {image_path})', async () => {
    const g = guardOf();
    expect((await check(g, 'tool_image_analyze', { image_path: '~/.ssh/authorized_keys' })).action).toBe(
      'deny',
    );
    expect((await check(g, 'tool_image_analyze', { image_path: 'src/a.png' })).action).toBe('allow');
    expect((await check(g, 'Read', { file_path: '~/.ssh/authorized_keys' })).action).toBe('deny');
    expect(
      (await check(g, 'read_multiple_files', { paths: ['src/a.ts', '~/.ssh/authorized_keys'] })).action,
    ).toBe('deny');
    // Content that mentions a path is content, not a path, for a known tool.
    expect((await check(g, 'write_file', { path: 'src/n.md', content: '/etc/passwd' })).action).toBe('allow');
  });

  it('output-writing tools are classified: tool_image_generate writes its upload cache', async () => {
    const g = guardOf();
    const d = await check(g, 'tool_image_generate', { prompt: 'a cat' });
    expect(d.action).toBe('deny');
    expect(d.accesses[0]).toMatchObject({ op: 'write', path: '/tmp/openfang_uploads' });
    const open = createGuard({
      plugins: [
        folderRules({ rules: [...(RULES ?? []), { pattern: '/tmp/openfang_uploads/**', access: 'write' }] }),
      ],
    });
    expect((await check(open, 'tool_image_generate', { prompt: 'a cat' })).action).toBe('allow');
    expect((await check(g, 'tool_text_to_speech', { text: 'hi' })).action).toBe('allow'); // <workspace>/output
  });

  it('undeclared tools: values shaped like paths (absolute, ~, file://) at any depth follow unknownTools', async () => {
    const g = guardOf();
    for (const args of [
      { items: [[{ where: { uri: 'file:///etc/shadow' } }]] },
      { spec: { out: '~/notes' } },
      { list: ['a', '/etc/passwd'] },
      { files: ['src/a.ts'] },
    ]) {
      const d = await check(g, 'frobnicate', args);
      expect(d.action, JSON.stringify(args)).toBe('deny');
      expect(d.reasons[0]?.code).toBe('UNKNOWN_TOOL');
    }
    const uri = await check(guardOf({ unknownTools: 'allow' }), 'frobnicate', {
      x: { uri: 'file:///etc/shadow' },
    });
    expect(uri.accesses[0]?.path).toBe('/etc/shadow');
    expect(uri.action).toBe('deny'); // judged by the rules: /etc is not allowed
    const prompt = await check(guardOf({ unknownTools: 'prompt' }), 'frobnicate', { path: 'src/a.ts' });
    expect(prompt.action).toBe('prompt');
    const allow = await check(guardOf({ unknownTools: 'allow' }), 'frobnicate', { path: 'src/a.ts' });
    expect(allow.action).toBe('allow');
  });

  it('benign twins: tools whose arguments name no path are allowed', async () => {
    const g = guardOf();
    for (const [tool, args] of [
      ['send_email', { to: 'bob@example.com', subject: 'hi', body: 'see /etc/passwd' }],
      ['web_search', { query: '/etc/passwd' }],
      ['translate', { text: 'hello', target: 'fr', source: 'en' }],
      ['deploy', { target: 'prod', replicas: 3 }],
      ['fetch_url', { url: 'https://example.com/a/b', file: 'https://example.com/x.png' }],
    ] as const) {
      const d = await check(g, tool, args);
      expect(d.action, `${tool} ${JSON.stringify(args)}`).toBe('allow');
    }
  });

  it('arguments too deep to walk are denied, not skipped', async () => {
    let deep: Record<string, unknown> = { path: '~/.ssh/authorized_keys' };
    for (let i = 0; i < 100; i++) deep = { x: deep };
    const d = await check(guardOf({ unknownTools: 'allow' }), 'frobnicate', deep);
    expect(d.action).toBe('deny');
  });

  it('declared selectors: a value of the wrong shape is uncertain, per-path ops apply', async () => {
    const g = guardOf({
      tools: { sync: { op: 'write', paths: [{ arg: 'pairs[].from', op: 'read' }, 'pairs[].to'] } },
    });
    const ok = await check(g, 'sync', { pairs: [{ from: join(root, 'ro', 'a'), to: 'src/a' }] });
    expect(ok.action).toBe('allow');
    const bad = await check(g, 'sync', { pairs: { from: 'x', to: 'y' } });
    expect(bad.action).toBe('deny');
    expect(bad.reasons[0]?.code).toBe('PATH_UNCERTAIN');
    expect(() => folderRules({ rules: RULES, tools: { t: { op: 'write', paths: ['ops[.path'] } } })).toThrow(
      /tools\.t\.paths\[0\].*ops\[\.path/,
    );
  });

  it('a policy file declares tools by selector, validated at load with file, field and value', () => {
    const good = loadPolicy({
      dialect: 'toolgate',
      file: 'p.yaml',
      source:
        'rules: []\ntools:\n  batch_write:\n    op: write\n    paths: ["ops[].path", {arg: "meta.backup_dir", op: write}]\n',
    });
    expect(good.tools.batch_write?.paths).toHaveLength(2);
    expect(() =>
      loadPolicy({
        dialect: 'toolgate',
        file: 'p.yaml',
        source: 'tools:\n  batch_write:\n    op: write\n    paths: ["ops[].path]"]\n',
      }),
    ).toThrow(/p\.yaml.*tools\.batch_write\.paths\.0.*ops\[\]\.path\]/);
    expect(() =>
      loadPolicy({
        dialect: 'toolgate',
        file: 'p.yaml',
        source: 'tools:\n  batch_write:\n    op: scribble\n',
      }),
    ).toThrow(/p\.yaml.*tools\.batch_write\.op.*scribble/);
  });

  it('MCP schemas: nested path properties are found, annotations decide read or write', () => {
    const g = guardOf();
    g.describeTools(
      [
        {
          name: 'bulk_edit',
          inputSchema: {
            type: 'object',
            properties: {
              ops: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { location: { type: 'string', description: 'Path of the file' } },
                },
              },
            },
          },
        },
        {
          name: 'peek',
          annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: { target: { type: 'string', format: 'uri' } } },
        },
      ],
      { cwd: ws, workspace: ws, home },
    );
    return (async () => {
      const into = await check(g, 'bulk_edit', { ops: [{ location: join(root, 'ro', 'x') }] });
      expect(into.reasons[0]?.code).toBe('PATH_DENIED'); // a write to a read-only root
      expect((await check(g, 'bulk_edit', { ops: [{ location: 'src/x' }] })).action).toBe('allow');
      expect((await check(g, 'peek', { target: `file://${join(root, 'ro', 'x')}` })).action).toBe('allow');
      expect((await check(g, 'peek', { target: 'file:///etc/shadow' })).action).toBe('deny');
      // A path-shaped argument the schema does not declare is not attributed: unknownTools decides.
      const extra = await check(g, 'peek', { target: `file://${join(ws, 'a')}`, other: '/etc/shadow' });
      expect(extra.reasons[0]?.code).toBe('UNKNOWN_TOOL');
    })();
  });
});

describe('path arguments of unexpected shapes', () => {
  it('an object under a path name is refused (uncertain); a path-shaped value inside it is not ignored', async () => {
    const g = guardOf();
    const obj = await check(g, 'read_file', { path: { uri: 'src/a.ts' } });
    expect(obj.action).toBe('deny');
    expect(obj.reasons[0]?.code).toBe('PATH_UNCERTAIN');
    const inner = await check(guardOf({ unknownTools: 'allow' }), 'write_file', {
      path: 'src/a.ts',
      options: { backup_path: '~/.ssh/authorized_keys' },
    });
    expect(inner.action).toBe('deny');
    const nestedShape = await check(g, 'write_file', {
      path: 'src/a.ts',
      target: { file: { ref: '/etc/x' } },
    });
    expect(nestedShape.action).toBe('deny');
    // Twin: nested content mentioning paths, under data names, is content.
    const twin = await check(g, 'write_file', {
      path: 'src/a.ts',
      meta: { note: '/etc/passwd', text: '~/x' },
    });
    expect(twin.action).toBe('allow');
  });
});

describe('pathless tools', () => {
  it('a file:// URI handed to a pathless tool is a read (web_fetch file:///…); an https URL is not', async () => {
    const g = guardOf();
    expect((await check(g, 'web_fetch', { url: `file://${home}/.ssh/authorized_keys` })).action).toBe('deny');
    expect((await check(g, 'web_fetch', { url: `file://${ws}/src/a.ts` })).action).toBe('allow');
    expect((await check(g, 'WebFetch', { url: 'https://example.com/etc/passwd', prompt: 'x' })).action).toBe(
      'allow',
    );
  });
});

describe('declarations in overlays', () => {
  it('a narrowOnly overlay may not declare tools or loosen unknownTools (both widen what is checked)', () => {
    const base = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n';
    const overlay = (body: string) => `${base}agents:\n  a:\n    narrowOnly: true\n${body}`;
    expect(() =>
      loadPolicy({
        dialect: 'toolgate',
        file: 'p.yaml',
        source: overlay('    tools: { write_file: { op: none } }\n'),
        agent: 'a',
      }),
    ).toThrow(/p\.yaml.*tools\.write_file.*narrowOnly but declares a tool/);
    expect(() =>
      loadPolicy({
        dialect: 'toolgate',
        file: 'p.yaml',
        source: overlay('    unknownTools: allow\n'),
        agent: 'a',
      }),
    ).toThrow(/narrowOnly but loosens unknownTools from deny/);
    // Twin: the same declaration in an overlay that is not narrowOnly is allowed.
    const open = loadPolicy({
      dialect: 'toolgate',
      file: 'p.yaml',
      source: `${base}agents:\n  a:\n    tools: { batch_write: { op: write, paths: ["ops[].path"] } }\n`,
      agent: 'a',
    });
    expect(open.tools.batch_write?.op).toBe('write');
  });
});

describe('more argument shapes', () => {
  it('JSON text inside an undeclared tool argument, name variants, file:// in a known tool', async () => {
    const g = guardOf();
    const json = await check(guardOf({ unknownTools: 'allow' }), 'frobnicate', {
      payload: JSON.stringify({ ops: [{ path: '~/.ssh/authorized_keys' }] }),
    });
    expect(json.action).toBe('deny');
    expect(json.reasons[0]?.access?.origin).toBe('folder-rules:args.payload(json).ops[0].path');
    for (const args of [
      { file_to_write: '~/.ssh/authorized_keys' },
      { filePathList: ['src/a.ts', '~/.ssh/authorized_keys'] },
      { FILE_PATH: '~/.ssh/authorized_keys' },
    ]) {
      const d = await check(guardOf({ unknownTools: 'allow' }), 'frobnicate', args);
      expect(d.action, JSON.stringify(args)).toBe('deny');
      expect(d.reasons[0]?.code).toBe('PATH_DENIED');
    }
    // A known tool handed a file:// URI under a name nothing declares: not attributed ⇒ unknownTools.
    const uri = await check(g, 'read_file', {
      path: 'src/a.ts',
      extra: `file://${home}/.ssh/authorized_keys`,
    });
    expect(uri.action).toBe('deny');
    // Twins: a "file_type" word, JSON content of a known tool, a query mentioning a path.
    expect(
      (await check(g, 'write_file', { path: 'src/t.json', content: '{"outDir": "/etc"}', file_type: 'json' }))
        .action,
    ).toBe('allow');
    expect(
      (
        await check(guardOf({ unknownTools: 'allow' }), 'frobnicate', {
          file_type: 'pdf',
          payload: '{"n": 1}',
        })
      ).action,
    ).toBe('allow');
  });
});
