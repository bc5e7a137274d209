import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallContext } from '@toolgate/core';

/** A real temporary workspace with a `secrets` folder (prompt tier) and a `private` folder (deny tier). */
export interface Workspace {
  root: string;
  secrets: string;
  private: string;
  ctx(sessionId: string): CallContext;
  cleanup(): void;
}

export function makeWorkspace(): Workspace {
  // realpath: on some systems the temp dir itself sits behind a symlink.
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-approvals-')));
  const ws = join(root, 'ws');
  const secrets = join(ws, 'secrets');
  const priv = join(ws, 'private');
  mkdirSync(join(secrets, 'deep'), { recursive: true });
  mkdirSync(priv, { recursive: true });
  return {
    root,
    secrets,
    private: priv,
    ctx: (sessionId) => ({
      sessionId,
      agentId: 'agent-1',
      cwd: ws,
      workspace: ws,
      home: root,
      env: {},
    }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
