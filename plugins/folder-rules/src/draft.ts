import type { NetworkSection } from '@toolgate/core';
import type {
  CombiningMode,
  DefaultSpec,
  Outcome,
  PolicyRule,
  PolicyTest,
  ShellSettings,
  ToolGates,
  ToolSpec,
  Vector,
} from './types.js';

/**
 * What a dialect loader produces: the canonical fields it set. Unset fields inherit when layered, and take
 * the model's defaults when finalised.
 */
export interface PolicyDraft {
  dialect: string;
  source: string;
  mode?: CombiningMode;
  rules?: PolicyRule[];
  default?: DefaultSpec;
  defaults?: Partial<Record<Vector, DefaultSpec>>;
  shell?: ShellSettings;
  unknownTools?: Outcome;
  tools?: Record<string, ToolSpec>;
  rejectTraversal?: boolean;
  relativeTo?: 'cwd' | 'workspace';
  disabled?: boolean;
  hideWriteTools?: boolean;
  tests?: PolicyTest[];
  gates?: ToolGates;
  extras?: Record<string, unknown>;
  /** The native dialect's `network` section, validated (presets expanded). Absent: not restricted. */
  network?: NetworkSection;
  /** This layer may only narrow what the layers beneath it allow. */
  narrowOnly?: boolean;
  /** Per-agent overlays carried in the same file. */
  agents?: Record<string, PolicyDraft>;
}

/** The model's reading of a single-word default. */
export function defaultSpec(word: 'allow' | 'deny' | 'prompt' | 'read' | 'write'): DefaultSpec {
  switch (word) {
    case 'deny':
      return { read: 'deny', write: 'deny' };
    case 'prompt':
      return { read: 'prompt', write: 'prompt' };
    case 'read':
      return { read: 'allow', write: 'deny' };
    default:
      return { read: 'allow', write: 'allow' };
  }
}
