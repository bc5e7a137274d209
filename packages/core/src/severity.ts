import { isWithin } from './isWithin.js';
import type { Access, Decision, Op } from './types.js';

export type Severity = 'critical' | 'high' | 'medium' | 'low';
export const SEVERITY_ORDER: Readonly<Record<Severity, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

/**
 * A severity rule: `under` matches a path by component containment (`/etc` covers `/etc/x`, not
 * `/etcetera`), `component` matches any path component (`.ssh`), `basename` the last component (`shadow`).
 */
export interface SeverityRule {
  severity: Severity;
  under?: string;
  component?: string;
  basename?: string;
  /** Restrict the rule to one operation. */
  op?: Op;
}

const CREDENTIAL_FILES = [
  'id_rsa',
  'id_ed25519',
  'id_ecdsa',
  'id_dsa',
  'credentials',
  '.netrc',
  '.pgpass',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.env',
  'authorized_keys',
  'known_hosts',
];

/** Seed 001's classification: system roots and account databases are critical, secrets and system trees high. */
export const DEFAULT_SEVERITY_RULES: readonly SeverityRule[] = Object.freeze([
  { severity: 'critical', under: '/etc' },
  { severity: 'critical', under: '/root' },
  { severity: 'critical', under: '/boot' },
  { severity: 'critical', basename: 'passwd' },
  { severity: 'critical', basename: 'shadow' },
  { severity: 'critical', basename: 'sudoers' },
  { severity: 'high', under: '/usr' },
  { severity: 'high', under: '/var' },
  { severity: 'high', under: '/sys' },
  { severity: 'high', under: '/proc' },
  { severity: 'high', under: '/dev' },
  { severity: 'high', component: '.ssh' },
  { severity: 'high', component: '.aws' },
  { severity: 'high', component: '.gnupg' },
  { severity: 'high', component: '.kube' },
  { severity: 'high', component: '.docker' },
  ...CREDENTIAL_FILES.map((basename) => ({ severity: 'high' as const, basename })),
]);

/** Severity of one access: the highest matching rule, else medium for writes and low for reads. */
export function accessSeverity(
  access: Pick<Access, 'op' | 'path' | 'realPath'>,
  rules: readonly SeverityRule[] = DEFAULT_SEVERITY_RULES,
): Severity {
  // `/` itself is critical: a write to or a subtree over the root touches everything.
  if (access.path === '/' || access.realPath === '/') return 'critical';
  let best: Severity = access.op === 'write' ? 'medium' : 'low';
  for (const candidate of access.realPath && access.realPath !== access.path
    ? [access.path, access.realPath]
    : [access.path]) {
    const parts = candidate.split('/');
    const base = parts[parts.length - 1] ?? '';
    for (const rule of rules) {
      if (rule.op !== undefined && rule.op !== access.op) continue;
      if (SEVERITY_ORDER[rule.severity] <= SEVERITY_ORDER[best]) continue;
      const hit =
        (rule.under !== undefined && isWithin(candidate, rule.under)) ||
        (rule.component !== undefined && parts.includes(rule.component)) ||
        (rule.basename !== undefined && base === rule.basename);
      if (hit) best = rule.severity;
    }
  }
  return best;
}

/** Severity of a decision: the highest of the accesses its findings name (or of all its accesses). */
export function decisionSeverity(
  decision: Pick<Decision, 'reasons' | 'accesses'>,
  rules?: readonly SeverityRule[],
): Severity {
  const named = decision.reasons.map((r) => r.access).filter((a): a is Access => a !== undefined);
  const pool = named.length > 0 ? named : decision.accesses;
  let best: Severity = 'low';
  for (const access of pool) {
    const s = accessSeverity(access, rules);
    if (SEVERITY_ORDER[s] > SEVERITY_ORDER[best]) best = s;
  }
  if (pool.length === 0 && decision.reasons.length > 0) best = 'medium';
  return best;
}
