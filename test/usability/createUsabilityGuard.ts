import { fileURLToPath } from 'node:url';
import { createGuard, type Guard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { sandbox } from '@toolgate/sandbox';
import { shell } from '@toolgate/shell';

/** The native policy file every usability check runs under (see policy.yaml). */
export const POLICY_FILE = fileURLToPath(new URL('./policy.yaml', import.meta.url));

/** A policy file beside policy.yaml, named by a corpus file's `# policy:` line. */
export function policyFile(name: string | undefined): string {
  return name === undefined ? POLICY_FILE : fileURLToPath(new URL(`./${name}`, import.meta.url));
}

/**
 * The guard the corpus and the twin tests use: the shell plugin plus folder rules loaded from policy.yaml,
 * as a host would compose them.
 * @example
 * const d = await createUsabilityGuard().check({ tool: 'Bash', args: { command: 'git log' } }, ctx);
 */
export function createUsabilityGuard(file: string = POLICY_FILE): Guard {
  const policy = loadPolicy({ dialect: 'toolgate', file });
  return createGuard({ plugins: [shell(), folderRules({ policy })] });
}

/**
 * The same guard with the OS sandbox on (`sandbox: uncertain`, what `toolgate init` writes where bubblewrap
 * works): a call analysis cannot prove is allowed *sandboxed* instead of denied (issue 22's usability yardstick).
 * @example
 * const d = await createSandboxedUsabilityGuard().check({ tool: 'Bash', args: { command: 'npm test' } }, ctx);
 * // d.action === 'allow', d.sandboxed !== undefined
 */
export function createSandboxedUsabilityGuard(file: string = POLICY_FILE): Guard {
  const policy = loadPolicy({ dialect: 'toolgate', file });
  return createGuard({
    plugins: [shell(), folderRules({ policy })],
    // As the CLI builds it: a policy whose network section needs the sandbox's proxy has its rewritten calls
    // start with `toolgate sandbox-exec` (the launcher; here only its argv is made, nothing runs).
    sandbox: sandbox({
      policy,
      mode: 'uncertain',
      network: {
        launcher: (socket) => ['toolgate', 'sandbox-exec', '--proxy-socket', socket, '--policy', file, '--'],
      },
    }),
  });
}
