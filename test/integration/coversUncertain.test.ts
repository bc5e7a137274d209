import { createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { describe, expect, it } from 'vitest';

// An uncertain access is denied because it might land on a refused path. A policy that refuses nothing for
// that operation cannot be bypassed by it, and denying it there is a false deny (first held-out corpus:
// "the Wunderland dangerous preset still denying unanalysable shell").
const ctx = { sessionId: 's', agentId: 'a', cwd: '/', workspace: '/', home: '/root', env: {} };
const bash = (command: string) => ({ tool: 'Bash', args: { command } });
const unanalysable = ['python3 -c "import os; print(os.listdir())"', 'cat "$(mktemp)"', 'eval "$X"'];

describe('coversUncertain', () => {
  it('the Wunderland dangerous tier (no rules, default allow) allows what cannot be analysed', async () => {
    const guard = createGuard({
      plugins: [
        shell(),
        folderRules({ dialect: 'wunderland', file: 'tier.json', source: '{"tier": "dangerous"}' }),
      ],
    });
    for (const cmd of unanalysable) expect((await guard.check(bash(cmd), ctx)).action, cmd).toBe('allow');
  });

  it('a tier with any block still denies it (the uncertain path could be /etc/…)', async () => {
    const guard = createGuard({
      plugins: [
        shell(),
        folderRules({ dialect: 'wunderland', file: 'tier.json', source: '{"tier": "permissive"}' }),
      ],
    });
    for (const cmd of unanalysable) {
      const d = await guard.check(bash(cmd), ctx);
      expect(d.action, cmd).toBe('deny');
      expect(d.reasons[0]?.code).toBe('PATH_UNCERTAIN');
    }
  });

  it('covers only the operations allowed everywhere: read everywhere, write nowhere', async () => {
    const guard = createGuard({
      plugins: [shell(), folderRules({ rules: [{ pattern: '/**', access: 'read' }], default: 'deny' })],
    });
    expect((await guard.check({ tool: 'read_file', args: { path: '$UNSET_DIR/x' } }, ctx)).action).toBe(
      'allow',
    );
    const w = await guard.check({ tool: 'write_file', args: { path: '$UNSET_DIR/x', content: '' } }, ctx);
    expect(w.action).toBe('deny');
  });
});
