import { createGuard, type Guard, type GuardOptions } from '@toolgate/core';
import { type ApprovalsOptions, approvals } from '../../src/index.js';
import { testPolicy } from './testPolicy.js';
import type { Workspace } from './workspace.js';

/** A guard with the test policy (prompt on `secrets`, deny on `private`) and the approvals plugin. */
export function guardFor(ws: Workspace, options: ApprovalsOptions, guardOptions: GuardOptions = {}): Guard {
  return createGuard({
    ...guardOptions,
    plugins: [
      testPolicy({ prompt: [ws.secrets], deny: [ws.private] }),
      approvals(options),
      ...(guardOptions.plugins ?? []),
    ],
  });
}
