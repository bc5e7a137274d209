import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Severity } from '@toolgate/core';
import { describeValue, SEVERITY_ORDER, ToolgateError } from '@toolgate/core';
import { defaultUserOf, type NotificationKind, type UserOf } from './event.js';
import type { WebhookFormat, WebhookTemplate } from './formats.js';
import {
  DEFAULT_RETRY,
  type EmailConfig,
  type RetryOptions,
  type WebhooksOptions,
  type WebhookTarget,
} from './options.js';
import { readEnvConfig } from './readEnvConfig.js';

export interface CompiledWebhook {
  kind: 'webhook';
  key: string;
  url: URL;
  format: WebhookFormat;
  min: number;
  headers: Record<string, string>;
  secret?: string;
  template?: WebhookTemplate;
  events: ReadonlySet<NotificationKind>;
}

export interface CompiledEmail {
  kind: 'email';
  key: string;
  config: EmailConfig;
  min: number;
  events: ReadonlySet<NotificationKind>;
}

export type CompiledTarget = CompiledWebhook | CompiledEmail;

export interface CompiledOptions {
  targets: CompiledTarget[];
  notifyPrompts: boolean;
  outboxDir: string;
  maxPending: number;
  maxDeadLetterBytes: number;
  retry: RetryOptions;
  userOf: UserOf;
}

const KEYS = new Set([
  'targets',
  'emailConfig',
  'minSeverity',
  'notifyPrompts',
  'outboxDir',
  'maxPending',
  'maxDeadLetterBytes',
  'retry',
  'env',
  'userOf',
]);
const TARGET_KEYS = new Set([
  'url',
  'format',
  'minSeverity',
  'headers',
  'secret',
  'template',
  'name',
  'events',
]);
const EMAIL_KEYS = new Set([
  'to',
  'from',
  'smtpHost',
  'smtpPort',
  'smtpUser',
  'smtpPass',
  'secure',
  'requireTLS',
  'minSeverity',
  'events',
]);
const FORMATS = new Set(['json', 'slack', 'discord', 'custom']);
const KINDS = new Set(['security.violation', 'approval.requested']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Headers the sender owns: a user value would break signing, de-duplication or framing.
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
  'x-toolgate-signature',
  'x-toolgate-timestamp',
  'x-toolgate-delivery',
]);

export function invalid(source: string, field: string, value: unknown, expected: string): ToolgateError {
  // Values from the environment are configuration, not code: they get the config code and name the variable.
  const code = source.startsWith('environment')
    ? 'TOOLGATE_ERR_INVALID_CONFIG'
    : 'TOOLGATE_ERR_INVALID_OPTIONS';
  return new ToolgateError(code, `${source}: ${field} must be ${expected}, got ${describeValue(value)}`, {
    field,
    source,
  });
}

function severity(source: string, field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !Object.hasOwn(SEVERITY_ORDER, value))
    throw invalid(source, field, value, 'one of low, medium, high, critical');
  return SEVERITY_ORDER[value as Severity];
}

function events(source: string, field: string, value: unknown): ReadonlySet<NotificationKind> {
  if (value === undefined) return KINDS as ReadonlySet<NotificationKind>;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => !KINDS.has(v))) {
    throw invalid(source, field, value, 'a non-empty array of "security.violation" / "approval.requested"');
  }
  return new Set(value as NotificationKind[]);
}

function positive(source: string, field: string, value: unknown, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !(value > 0) ||
    !Number.isFinite(value) ||
    (integer && !Number.isInteger(value))
  ) {
    throw invalid(source, field, value, integer ? 'a positive integer' : 'a positive number');
  }
  return value;
}

export function detectFormat(url: URL): WebhookFormat {
  if (url.hostname === 'hooks.slack.com') return 'slack';
  if (
    /^(?:(?:canary|ptb)\.)?discord(?:app)?\.com$/.test(url.hostname) &&
    url.pathname.startsWith('/api/webhooks/')
  )
    return 'discord';
  return 'json';
}

export function parseUrl(source: string, field: string, value: unknown): URL {
  let url: URL | undefined;
  if (typeof value === 'string') {
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw invalid(source, field, value, 'an absolute http(s) URL');
  return url;
}

function compileWebhook(
  source: string,
  field: string,
  t: WebhookTarget,
  defaultMin: number,
): CompiledWebhook {
  if (t === null || typeof t !== 'object')
    throw invalid(source, field, t, 'an object {url, format?, minSeverity?, headers?, secret?}');
  for (const key of Object.keys(t))
    if (!TARGET_KEYS.has(key))
      throw invalid(
        source,
        `${field}.${key}`,
        (t as unknown as Record<string, unknown>)[key],
        `one of ${[...TARGET_KEYS].join(', ')} (unknown field)`,
      );
  const url = parseUrl(source, `${field}.url`, t.url);
  const format = t.format ?? detectFormat(url);
  if (!FORMATS.has(format))
    throw invalid(source, `${field}.format`, t.format, 'one of json, slack, discord, custom');
  if (format === 'custom' && typeof t.template !== 'function')
    throw invalid(source, `${field}.template`, t.template, 'a function (format "custom" renders with it)');
  if (t.template !== undefined && typeof t.template !== 'function')
    throw invalid(source, `${field}.template`, t.template, 'a function');
  if (t.secret !== undefined && (typeof t.secret !== 'string' || t.secret === ''))
    throw invalid(source, `${field}.secret`, t.secret, 'a non-empty string');
  if (t.name !== undefined && (typeof t.name !== 'string' || t.name === ''))
    throw invalid(source, `${field}.name`, t.name, 'a non-empty string');
  const headers: Record<string, string> = {};
  if (t.headers !== undefined) {
    if (t.headers === null || typeof t.headers !== 'object' || Array.isArray(t.headers))
      throw invalid(source, `${field}.headers`, t.headers, 'an object of header names to strings');
    for (const [name, value] of Object.entries(t.headers)) {
      if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(name.toLowerCase()))
        throw invalid(
          source,
          `${field}.headers`,
          name,
          'a valid header name that toolgate does not set itself',
        );
      if (typeof value !== 'string' || /[\r\n\0]/.test(value))
        throw invalid(source, `${field}.headers.${name}`, value, 'a string without CR, LF or NUL');
      headers[name] = value;
    }
  }
  // The outbox names targets by a hash, never the URL: Slack and Discord URLs are secrets themselves.
  const key = t.name ?? `${format}:${createHash('sha256').update(url.href).digest('hex').slice(0, 16)}`;
  return {
    kind: 'webhook',
    key,
    url,
    format,
    min: severity(source, `${field}.minSeverity`, t.minSeverity, defaultMin),
    headers,
    ...(t.secret ? { secret: t.secret } : {}),
    ...(t.template ? { template: t.template } : {}),
    events: events(source, `${field}.events`, t.events),
  };
}

function compileEmail(source: string, field: string, c: EmailConfig, defaultMin: number): CompiledEmail {
  if (c === null || typeof c !== 'object')
    throw invalid(source, field, c, 'an object {to, from, smtpHost, smtpPort?, smtpUser?, smtpPass?}');
  for (const key of Object.keys(c))
    if (!EMAIL_KEYS.has(key))
      throw invalid(
        source,
        `${field}.${key}`,
        (c as unknown as Record<string, unknown>)[key],
        `one of ${[...EMAIL_KEYS].join(', ')} (unknown field)`,
      );
  const to = typeof c.to === 'string' ? [c.to] : c.to;
  const address = (v: unknown) => typeof v === 'string' && /^[^\s@<>,]+@[^\s@<>,]+$/.test(v);
  if (!Array.isArray(to) || to.length === 0 || !to.every(address))
    throw invalid(source, `${field}.to`, c.to, 'an e-mail address or a non-empty array of them');
  if (!address(c.from)) throw invalid(source, `${field}.from`, c.from, 'an e-mail address');
  if (typeof c.smtpHost !== 'string' || c.smtpHost === '' || /[\s/]/.test(c.smtpHost))
    throw invalid(source, `${field}.smtpHost`, c.smtpHost, 'a host name');
  if (c.smtpPort !== undefined && (!Number.isInteger(c.smtpPort) || c.smtpPort < 1 || c.smtpPort > 65_535))
    throw invalid(source, `${field}.smtpPort`, c.smtpPort, 'a port number 1-65535');
  if ((c.smtpUser === undefined) !== (c.smtpPass === undefined))
    throw invalid(
      source,
      `${field}.smtpPass`,
      c.smtpPass === undefined ? undefined : '(set)',
      'given together with smtpUser',
    );
  for (const k of ['smtpUser', 'smtpPass'] as const)
    if (c[k] !== undefined && typeof c[k] !== 'string')
      throw invalid(source, `${field}.${k}`, c[k], 'a string');
  for (const k of ['secure', 'requireTLS'] as const)
    if (c[k] !== undefined && typeof c[k] !== 'boolean')
      throw invalid(source, `${field}.${k}`, c[k], 'a boolean');
  return {
    kind: 'email',
    key: `email:${createHash('sha256')
      .update(`${c.smtpHost}:${c.smtpPort ?? 587}:${to.join(',')}`)
      .digest('hex')
      .slice(0, 16)}`,
    config: { ...c, to: [...to] },
    min: severity(source, `${field}.minSeverity`, c.minSeverity, defaultMin),
    events: events(source, `${field}.events`, c.events),
  };
}

/** Validates everything once, at construction: a bad option throws here naming the field and value. */
export function compileOptions(options: WebhooksOptions): CompiledOptions {
  const source = 'webhooks()';
  if (options === null || typeof options !== 'object')
    throw invalid(source, '(options)', options, 'an object');
  for (const key of Object.keys(options))
    if (!KEYS.has(key))
      throw invalid(
        source,
        key,
        (options as Record<string, unknown>)[key],
        `one of ${[...KEYS].join(', ')} (unknown option)`,
      );
  const env = options.env ?? process.env;
  if (env === null || typeof env !== 'object')
    throw invalid(source, 'env', env, 'an object of environment variables');
  const fromEnv = readEnvConfig(env);
  const defaultMin =
    options.minSeverity !== undefined
      ? severity(source, 'minSeverity', options.minSeverity, SEVERITY_ORDER.high)
      : severity(
          'environment TOOLGATE_WEBHOOK_MIN_SEVERITY',
          'value',
          fromEnv.minSeverity,
          SEVERITY_ORDER.high,
        );
  if (options.targets !== undefined && !Array.isArray(options.targets))
    throw invalid(source, 'targets', options.targets, 'an array of targets');

  const targets: CompiledTarget[] = [];
  for (const [i, t] of (options.targets ?? []).entries())
    targets.push(compileWebhook(source, `targets[${i}]`, t, defaultMin));
  fromEnv.targets.forEach((t, i) => {
    // The same URL in options and in the environment is one receiver, not two deliveries.
    const compiled = compileWebhook(fromEnv.source, `entry ${i + 1}`, t, defaultMin);
    if (!targets.some((c) => c.kind === 'webhook' && c.url.href === compiled.url.href))
      targets.push(compiled);
  });
  const email = options.emailConfig ?? fromEnv.emailConfig;
  if (email !== undefined)
    targets.push(
      compileEmail(
        options.emailConfig ? source : 'environment TOOLGATE_SMTP_*/TOOLGATE_EMAIL_*',
        'emailConfig',
        email,
        defaultMin,
      ),
    );
  const keys = new Set<string>();
  for (const t of targets) {
    if (keys.has(t.key)) throw invalid(source, 'targets', t.key, 'targets with distinct names and URLs');
    keys.add(t.key);
  }

  if (options.notifyPrompts !== undefined && typeof options.notifyPrompts !== 'boolean')
    throw invalid(source, 'notifyPrompts', options.notifyPrompts, 'a boolean');
  if (options.userOf !== undefined && typeof options.userOf !== 'function')
    throw invalid(source, 'userOf', options.userOf, 'a function (ctx) => string | null');
  const outboxDir =
    options.outboxDir ?? fromEnv.outboxDir ?? join(homedir(), '.local', 'state', 'toolgate', 'webhooks');
  if (typeof outboxDir !== 'string' || !isAbsolute(outboxDir) || outboxDir.includes('\0')) {
    throw options.outboxDir === undefined
      ? invalid('environment TOOLGATE_WEBHOOKS_OUTBOX', 'value', outboxDir, 'an absolute directory path')
      : invalid(source, 'outboxDir', outboxDir, 'an absolute directory path');
  }
  const r = options.retry ?? {};
  if (r === null || typeof r !== 'object') throw invalid(source, 'retry', r, 'an object');
  for (const key of Object.keys(r))
    if (!(key in DEFAULT_RETRY))
      throw invalid(
        source,
        `retry.${key}`,
        (r as Record<string, unknown>)[key],
        `one of ${Object.keys(DEFAULT_RETRY).join(', ')}`,
      );
  const retry: RetryOptions = {
    maxAttempts: positive(source, 'retry.maxAttempts', r.maxAttempts, DEFAULT_RETRY.maxAttempts, true),
    baseDelayMs: positive(source, 'retry.baseDelayMs', r.baseDelayMs, DEFAULT_RETRY.baseDelayMs),
    maxDelayMs: positive(source, 'retry.maxDelayMs', r.maxDelayMs, DEFAULT_RETRY.maxDelayMs),
    maxRetryAfterMs: positive(
      source,
      'retry.maxRetryAfterMs',
      r.maxRetryAfterMs,
      DEFAULT_RETRY.maxRetryAfterMs,
    ),
    timeoutMs: positive(source, 'retry.timeoutMs', r.timeoutMs, DEFAULT_RETRY.timeoutMs),
  };
  return {
    targets,
    notifyPrompts: options.notifyPrompts ?? false,
    outboxDir,
    maxPending: positive(source, 'maxPending', options.maxPending, 10_000, true),
    maxDeadLetterBytes: positive(
      source,
      'maxDeadLetterBytes',
      options.maxDeadLetterBytes,
      10 * 1024 * 1024,
      true,
    ),
    retry,
    userOf: options.userOf ?? defaultUserOf,
  };
}
