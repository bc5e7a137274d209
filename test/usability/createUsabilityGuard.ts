import { fileURLToPath } from 'node:url';
import { createGuard, type Guard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';

/** The native policy file every usability check runs under (see policy.yaml). */
export const POLICY_FILE = fileURLToPath(new URL('./policy.yaml', import.meta.url));

/**
 * The guard the corpus and the twin tests use: the shell plugin plus folder rules loaded from policy.yaml,
 * as a host would compose them.
 * @example
 * const d = await createUsabilityGuard().check({ tool: 'Bash', args: { command: 'git log' } }, ctx);
 */
export function createUsabilityGuard(): Guard {
  const policy = loadPolicy({ dialect: 'toolgate', file: POLICY_FILE });
  return createGuard({ plugins: [shell(), folderRules({ policy })] });
}
