import { isAbsolute, join } from 'node:path';
import type { CompiledPolicy } from '@toolgate/folder-rules';

/** What a policy's own dialect settings add to an integration's guard (`mcp`, `hook`). */
export interface DialectSettings {
  /** The dialect's audit trail, when it asks for one. */
  audit?: { file: string; level: 'violations' | 'all' };
  /** wolo `max_confirmations_per_session`. */
  maxConfirmationsPerSession?: number;
  /** Where confirmations persist per session (wolo: `~/.wolo/sessions/<session_id>/`). */
  sessionsDir?: string;
}

function inHome(path: string, home: string): string {
  if (path === '~' || path.startsWith('~/')) return join(home, path.slice(1));
  return isAbsolute(path) ? path : join(home, path);
}

/**
 * Reads the settings a dialect carries besides its rules. wolo (seed 002): `audit_denied` logs denials to
 * `audit_log_file` (default `~/.wolo/path_audit.log`), wild mode logs every decision there, confirmations
 * are capped by `max_confirmations_per_session` and saved under `~/.wolo/sessions/`. Wunderland (seed 001):
 * "All permission violations are logged" to `~/.wunderland/security/violations.log`.
 */
export function dialectSettings(policy: CompiledPolicy, home: string): DialectSettings {
  const x = policy.extras;
  if (policy.dialect === 'wolo') {
    const out: DialectSettings = { sessionsDir: join(home, '.wolo', 'sessions') };
    if (typeof x.maxConfirmationsPerSession === 'number')
      out.maxConfirmationsPerSession = x.maxConfirmationsPerSession;
    if (x.auditDenied === true || x.wild === true) {
      const file = typeof x.auditLogFile === 'string' ? x.auditLogFile : '~/.wolo/path_audit.log';
      out.audit = { file: inHome(file, home), level: x.wild === true ? 'all' : 'violations' };
    }
    return out;
  }
  if (policy.dialect === 'wunderland')
    return {
      audit: { file: join(home, '.wunderland', 'security', 'violations.log'), level: 'violations' },
    };
  return {};
}
