import type { AuditErrorEvent, AuditLogPlugin } from '@toolgate/audit-log';
import type { Guard } from '@toolgate/core';

/** What went wrong with the `--audit` trail during one command, for a loud report. */
export interface AuditWatch {
  /** A one-line description of the failure, or undefined when every record was written. */
  trouble(): string | undefined;
}

function describe(event: AuditErrorEvent): string {
  const error = event.error instanceof Error ? event.error.message : String(event.error);
  return `${event.what} failed: ${error}`;
}

/**
 * Watches the audit plugin of a CLI command: an unwritable `--audit` path used to make the hook and the
 * gateway write nothing, silently. Events are collected as they come; `trouble()` also asks the trail itself
 * (records still buffered, or not open), after one more attempt to write them.
 */
export function watchAudit(guard: Guard, audit: AuditLogPlugin | undefined): AuditWatch {
  const seen: string[] = [];
  if (audit) guard.events.on('audit-error', (event: AuditErrorEvent) => void seen.push(describe(event)));
  return {
    trouble() {
      if (!audit) return undefined;
      const flushed = audit.flush();
      if (flushed && audit.healthy && seen.length === 0) return undefined;
      const detail =
        seen[0] ?? (audit.healthy ? 'records are waiting to be written' : 'the file cannot be opened');
      const lost = audit.counters.buffered + audit.counters.dropped;
      return `audit trail ${audit.file} cannot be written (${detail}${lost > 0 ? `; ${lost} record(s) not on disk` : ''})`;
    },
  };
}

/** The audit trail's state right after the plugin was built (an unopenable file fails here, not at exit). */
export function auditOpenProblem(audit: AuditLogPlugin | undefined): string | undefined {
  if (!audit || audit.healthy) return undefined;
  return `audit trail ${audit.file} cannot be opened for writing`;
}
