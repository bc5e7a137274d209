import type { CompiledPolicy } from '@toolgate/folder-rules';

export type SandboxMode = 'off' | 'uncertain' | 'always';
export const SANDBOX_MODES: readonly SandboxMode[] = ['off', 'uncertain', 'always'];

/** The policy's `sandbox:` switch (native toolgate dialect; other dialects have none: `off`). */
export function sandboxModeOf(policy: CompiledPolicy): SandboxMode {
  const mode = policy.extras.sandbox;
  return typeof mode === 'string' && (SANDBOX_MODES as readonly string[]).includes(mode)
    ? (mode as SandboxMode)
    : 'off';
}
