import type { Severity } from '@toolgate/core';
import type { EmailConfig, WebhookTarget } from './options.js';

export interface EnvConfig {
  /** Names the variables in error messages, e.g. `environment TOOLGATE_VIOLATION_WEBHOOKS`. */
  source: string;
  targets: WebhookTarget[];
  minSeverity?: Severity;
  outboxDir?: string;
  emailConfig?: EmailConfig;
}

/**
 * Seed 001's environment configuration: `TOOLGATE_VIOLATION_WEBHOOKS="url1,url2"` (or the seed's own
 * `WUNDERLAND_VIOLATION_WEBHOOKS`)
 * (format detected from each URL), `TOOLGATE_WEBHOOK_SECRET` signs them, `TOOLGATE_WEBHOOK_MIN_SEVERITY`,
 * `TOOLGATE_WEBHOOKS_OUTBOX`, and `TOOLGATE_SMTP_HOST`/`_PORT`/`_USER`/`_PASS` with `TOOLGATE_EMAIL_TO`/`_FROM`.
 * Values are only collected here; compileOptions validates them and names the variable when one is wrong.
 */
export function readEnvConfig(env: Readonly<Record<string, string | undefined>>): EnvConfig {
  // Seed 001's own name, `WUNDERLAND_VIOLATION_WEBHOOKS`, is read too: a Wunderland deployment keeps its
  // environment as it is. Both lists are used; a URL in both is one receiver.
  const names = ['TOOLGATE_VIOLATION_WEBHOOKS', 'WUNDERLAND_VIOLATION_WEBHOOKS'].filter(
    (n) => (env[n] ?? '').trim() !== '',
  );
  const secret = env.TOOLGATE_WEBHOOK_SECRET;
  const urls = names.flatMap((n) =>
    (env[n] ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== ''),
  );
  const targets: WebhookTarget[] = [...new Set(urls)].map((url) => ({ url, ...(secret ? { secret } : {}) }));
  const config: EnvConfig = {
    source: `environment ${names.length > 0 ? names.join('/') : 'TOOLGATE_VIOLATION_WEBHOOKS'}`,
    targets,
  };
  const min = env.TOOLGATE_WEBHOOK_MIN_SEVERITY;
  if (min !== undefined && min !== '') config.minSeverity = min as Severity;
  if (env.TOOLGATE_WEBHOOKS_OUTBOX) config.outboxDir = env.TOOLGATE_WEBHOOKS_OUTBOX;
  if (env.TOOLGATE_SMTP_HOST) {
    const port = env.TOOLGATE_SMTP_PORT;
    config.emailConfig = {
      smtpHost: env.TOOLGATE_SMTP_HOST,
      to: (env.TOOLGATE_EMAIL_TO ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
      from: env.TOOLGATE_EMAIL_FROM ?? '',
      ...(port ? { smtpPort: /^\d+$/.test(port) ? Number(port) : (port as unknown as number) } : {}),
      ...(env.TOOLGATE_SMTP_USER !== undefined ? { smtpUser: env.TOOLGATE_SMTP_USER } : {}),
      ...(env.TOOLGATE_SMTP_PASS !== undefined ? { smtpPass: env.TOOLGATE_SMTP_PASS } : {}),
    };
  }
  return config;
}
