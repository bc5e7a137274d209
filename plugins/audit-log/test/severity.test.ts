import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../src/index.js';
import { context, tempDir } from './helpers.js';

interface Case {
  op: 'read' | 'write';
  path: string;
  realPath?: string;
  severity: string;
}
const cases = readFileSync(new URL('./fixtures/severity.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Case);

// Severity of each recorded deny, through the plugin (which delegates to core's component-based classifier).
describe('severity in records (fixtures/severity.jsonl: one case per line)', () => {
  for (const c of cases) {
    it(`${c.op} ${c.path}${c.realPath ? ` -> ${c.realPath}` : ''} is ${c.severity}`, async () => {
      const root = tempDir();
      const file = join(root, 'v.log');
      const guard = createGuard({
        plugins: [
          {
            name: 'fixed',
            policy: true,
            apply(hooks) {
              hooks.collectAccesses.tap('x', (a) => [
                ...a,
                {
                  op: c.op,
                  scope: 'path',
                  raw: c.path,
                  path: c.path,
                  realPath: c.realPath ?? c.path,
                  origin: 'test',
                  certain: true,
                },
              ]);
              hooks.beforeToolCall.tap('x', (_call, state) => ({
                action: 'deny',
                code: 'PATH_DENIED',
                reason: 'no',
                access: state.accesses[0]!,
              }));
            },
          },
          auditLog({ file }),
        ],
      });
      await guard.check({ tool: `${c.op}_file`, args: { path: c.path } }, context(root));
      const record = JSON.parse(readFileSync(file, 'utf8')) as { severity: string };
      expect(record.severity).toBe(c.severity);
    });
  }
});
