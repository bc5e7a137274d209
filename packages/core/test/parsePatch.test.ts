import { findArgPaths, parsePatch, pathKeyKind } from '@toolgate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// The one apply_patch parser (folder-rules' apply_patch tool and the shell plugin's Codex argv/heredoc both
// use it) and the one argument finder. Properties: every file a generated patch names comes back; nothing
// ever throws; a patch that is not one is never read as an empty one.
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}(\/[a-z0-9_.]{1,6}){0,3}$/);
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), path: name }),
  fc.record({ kind: fc.constant('delete' as const), path: name }),
  fc.record({ kind: fc.constant('update' as const), path: name }),
  fc.record({ kind: fc.constant('move' as const), path: name, to: name }),
);

describe('parsePatch', () => {
  it('a Codex envelope: every Add/Update/Delete/Move path comes back with its action', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 6 }), (ops) => {
        const body = ops.map((o) => {
          if (o.kind === 'add') return `*** Add File: ${o.path}\n+line`;
          if (o.kind === 'delete') return `*** Delete File: ${o.path}`;
          if (o.kind === 'update') return `*** Update File: ${o.path}\n@@\n-a\n+b`;
          return `*** Update File: ${o.path}\n*** Move to: ${o.to}\n@@\n-a\n+b`;
        });
        const parsed = parsePatch(`*** Begin Patch\n${body.join('\n')}\n*** End Patch`);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const want = ops.flatMap((o) =>
          o.kind === 'move' ? [`move-from ${o.path}`, `move-to ${o.to}`] : [`${o.kind} ${o.path}`],
        );
        expect(parsed.files.map((f) => `${f.action} ${f.path}`)).toEqual(want);
      }),
    );
  });

  it('a unified diff: every header name comes back, whatever the hunks hold', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ from: name, to: name, body: fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 }) }),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (files) => {
          // Removed lines may read like headers (`--- x`): hunk counting keeps them content.
          const text = files
            .map((f) => {
              const lines = f.body.map((l) => `-${l.replace(/\n/g, '')}`);
              return `--- a/${f.from}\n+++ b/${f.to}\n@@ -1,${lines.length + 1} +1 @@\n${lines.join('\n')}${lines.length ? '\n' : ''}-x\n+y`;
            })
            .join('\n');
          const parsed = parsePatch(text);
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) return;
          expect(new Set(parsed.files.map((f) => f.path))).toEqual(
            new Set(files.flatMap((f) => [`a/${f.from}`, `b/${f.to}`])),
          );
        },
      ),
    );
  });

  it('never throws, and text without a patch does not parse (it is denied, not read as empty)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const parsed = parsePatch(text);
        if (parsed.ok) expect(parsed.files.length).toBeGreaterThan(0);
      }),
    );
    for (const text of ['', 'hello', '*** Begin Patch\n*** End Patch', '+++ b/x\n'])
      expect(parsePatch(text).ok).toBe(false);
  });
});

describe('findArgPaths', () => {
  it('names: the last word decides (*_path, *_filepath, *File, *_dir), transfer ends and from/to are weaker', () => {
    for (const k of [
      'path',
      'paths',
      'file_path',
      'source_filepath',
      'destination_filepath',
      'imagePath',
      'notebook_path',
      'target_dir',
      'cwd',
      'working_directory',
      'file_name',
      'files',
    ])
      expect(pathKeyKind(k), k).toBe('path');
    for (const k of ['source', 'dest', 'destination', 'target', 'src']) expect(pathKeyKind(k), k).toBe('end');
    for (const k of ['from', 'to', 'output']) expect(pathKeyKind(k), k).toBe('weak');
    // Names that start like a path count only with a path-looking value (`file_type: "pdf"` is no path).
    for (const k of ['file_type', 'file_to_read', 'filePathList']) expect(pathKeyKind(k), k).toBe('maybe');
    for (const k of ['content', 'profile', 'source_code', 'user_name', 'query', 'mode'])
      expect(pathKeyKind(k), k).toBe('none');
  });

  it('walks objects and arrays at any depth; values by shape only in loose mode, never under data names', () => {
    const args = {
      ops: [{ path: 'a', content: '/etc/passwd' }, { meta: { to: 'out/x.txt', note: '~/x' } }],
      u: 'file:///e',
      v: '$HOME/k',
    };
    const loose = findArgPaths(args, { mode: 'loose' }).found.map((f) => `${f.by} ${f.where}`);
    expect(loose).toEqual(['name ops[0].path', 'name ops[1].meta.to', 'shape u', 'shape v']);
    const strict = findArgPaths(args, { mode: 'strict' }).found.map((f) => f.where);
    // A file:// URI is a path in any tool; other shapes are not, in a file tool's arguments.
    expect(strict).toEqual(['ops[0].path', 'ops[1].meta.to', 'u']);
    let deep: Record<string, unknown> = { path: '/x' };
    for (let i = 0; i < 50; i++) deep = { a: deep };
    expect(findArgPaths(deep, { mode: 'loose' }).overflow).toMatch(/deeper/);
  });

  it('a path used as an object key is a path (a map from file to content)', () => {
    const args = {
      files: { '/etc/cron.d/x': '* * * * * root sh', 'notes.md': 'hi' },
      meta: { '~/.ssh/config': 1 },
    };
    const loose = findArgPaths(args, { mode: 'loose' }).found.map(
      (f) => `${f.by} ${f.where} ${String(f.value)}`,
    );
    expect(loose).toContain('shape files["/etc/cron.d/x"] /etc/cron.d/x');
    expect(loose).toContain('shape meta["~/.ssh/config"] ~/.ssh/config');
    // a file tool: keys count beneath a path-named argument only
    const strict = findArgPaths(args, { mode: 'strict' }).found.map((f) => f.where);
    expect(strict).toContain('files["/etc/cron.d/x"]');
    expect(strict).not.toContain('meta["~/.ssh/config"]');
    // twin: ordinary keys are no paths
    expect(findArgPaths({ headers: { 'content-type': 'x', accept: 'y' } }, { mode: 'loose' }).found).toEqual(
      [],
    );
  });
});
