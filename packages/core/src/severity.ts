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

interface CompiledSeverity {
  under: Array<[root: string, level: number]>;
  component: Map<string, number>;
  basename: Map<string, number>;
}

const LEVELS: readonly Severity[] = ['low', 'medium', 'high', 'critical'];
// Compiled once per rule list (and per operation): one map lookup per path component instead of a scan of
// every rule, on the path of every audited or notified decision.
const compiledCache = new WeakMap<readonly SeverityRule[], Record<'read' | 'write', CompiledSeverity>>();

function compileFor(rules: readonly SeverityRule[], op: Op): CompiledSeverity {
  const out: CompiledSeverity = { under: [], component: new Map(), basename: new Map() };
  for (const rule of rules) {
    if (rule.op !== undefined && rule.op !== op) continue;
    const level = SEVERITY_ORDER[rule.severity];
    if (rule.under !== undefined)
      out.under.push([rule.under.length > 1 ? rule.under.replace(/\/+$/, '') : rule.under, level]);
    if (rule.component !== undefined)
      out.component.set(rule.component, Math.max(level, out.component.get(rule.component) ?? 0));
    if (rule.basename !== undefined)
      out.basename.set(rule.basename, Math.max(level, out.basename.get(rule.basename) ?? 0));
  }
  return out;
}

function compiled(rules: readonly SeverityRule[], op: Op): CompiledSeverity {
  let entry: Record<'read' | 'write', CompiledSeverity> | undefined = compiledCache.get(rules);
  if (!entry) {
    entry = { read: compileFor(rules, 'read'), write: compileFor(rules, 'write') };
    compiledCache.set(rules, entry);
  }
  // Listing names is a read of the directory for severity, as for policies.
  return entry[op === 'list' ? 'read' : op];
}

function levelOf(path: string, table: CompiledSeverity, floor: number): number {
  let best = floor;
  for (const [root, level] of table.under) if (level > best && isWithin(path, root)) best = level;
  if (table.component.size > 0 || table.basename.size > 0) {
    let start = 1;
    while (start <= path.length) {
      let end = path.indexOf('/', start);
      if (end === -1) end = path.length;
      const part = path.slice(start, end);
      const c = table.component.get(part);
      if (c !== undefined && c > best) best = c;
      if (end === path.length) {
        const b = table.basename.get(part);
        if (b !== undefined && b > best) best = b;
      }
      start = end + 1;
    }
  }
  return best;
}

/** Severity of one access: the highest matching rule, else medium for writes and low for reads. */
export function accessSeverity(
  access: Pick<Access, 'op' | 'path' | 'realPath'>,
  rules: readonly SeverityRule[] = DEFAULT_SEVERITY_RULES,
): Severity {
  // `/` itself is critical: a write to or a subtree over the root touches everything.
  if (access.path === '/' || access.realPath === '/') return 'critical';
  const table = compiled(rules, access.op);
  let best = levelOf(access.path, table, access.op === 'write' ? 1 : 0);
  if (access.realPath && access.realPath !== access.path) best = levelOf(access.realPath, table, best);
  return LEVELS[best]!;
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
