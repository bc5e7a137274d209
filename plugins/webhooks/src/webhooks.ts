import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { GuardPlugin, PluginApi, PromptRequest, Violation } from '@toolgate/core';
import { describeValue, SEVERITY_ORDER, Stage, ToolgateError } from '@toolgate/core';
import type { Transporter } from 'nodemailer';
import type { Agent } from 'undici';
import { type CompiledTarget, compileOptions } from './compileOptions.js';
import type { Deliver } from './delivery.js';
import { createDispatcher, type Dispatcher, type WebhookStats } from './dispatcher.js';
import { type NotificationEvent, promptEvent, violationEvent } from './event.js';
import type { WebhooksOptions } from './options.js';
import { disabledOutbox, type Outbox, openOutbox } from './outbox.js';
import { createMailTransport, sendEmail } from './sendEmail.js';
import { createHttpAgent, sendHttp } from './sendHttp.js';

/** The plugin, plus what a host needs to drain it. */
export interface WebhooksPlugin extends GuardPlugin {
  /** `webhooks:delivered`, `webhooks:retry`, `webhooks:dead-letter`, `webhooks:error` (also emitted on `guard.events`). */
  readonly events: EventEmitter;
  readonly outboxFile: string;
  readonly deadLetterFile: string;
  /** Names of the configured targets (as stored in the outbox). */
  readonly targets: readonly string[];
  /** Queues an event for every target whose threshold it meets; returns how many. O(1) per target, no I/O. */
  notify(event: NotificationEvent): number;
  /** Resolves `true` once every queued event is delivered or dead-lettered, `false` if `timeoutMs` passes first. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Stops sending (in-flight requests are aborted and stay queued), leaves what is pending in its outbox file for the next start. */
  close(): Promise<void>;
  stats(): WebhookStats;
}

/**
 * Violation (and optionally approval-request) notifications over HTTP and SMTP that never slow a decision
 * and survive a restart. The `onViolation` tap only computes the event and queues it in memory; a serial
 * writer persists it to the outbox and one sender per target delivers it, signed, with retries.
 *
 * Approval requests are observed on `onPrompt` at a stage just before `Stage.APPROVAL` with a tap that always
 * returns undefined, so grants (at `Stage.GRANTS`) settle first and the human hears about the prompt while it
 * can still be answered; the tap never answers it.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { webhooks } from '@toolgate/webhooks';
 * const notify = webhooks({
 *   targets: [{ url: 'https://hooks.slack.com/services/T/B/X' }, { url: 'https://siem.example/hook', secret: process.env.HOOK_SECRET }],
 *   emailConfig: { to: 'security@example.com', from: 'toolgate@example.com', smtpHost: 'smtp.example.com', smtpPort: 587 },
 *   outboxDir: '/var/lib/toolgate/outbox',
 * });
 * const guard = createGuard({ plugins: [policy, notify] });
 * process.on('SIGTERM', () => void notify.flush(2_000).then(() => notify.close()));
 * ```
 */
export function webhooks(options: WebhooksOptions = {}): WebhooksPlugin {
  const config = compileOptions(options);
  const events = new EventEmitter();
  const apis: PluginApi[] = [];
  const emit = (name: string, payload: unknown) => {
    if (events.listenerCount(name) > 0) {
      try {
        events.emit(name, payload);
      } catch {
        /* a listener's bug must not stop delivery */
      }
    }
    for (const api of apis) api.emit(name, payload);
  };

  // No targets (say, nothing in the environment): the plugin is inert and must not create directories.
  const outbox: Outbox =
    config.targets.length === 0
      ? disabledOutbox(config.outboxDir)
      : openOutbox(config.outboxDir, {
          maxPending: config.maxPending,
          maxDeadLetterBytes: config.maxDeadLetterBytes,
          onError: (error) => emit('webhooks:error', { error }),
        });

  let agent: Agent | undefined;
  const transports: Transporter[] = [];
  const deliverers = new Map<string, Deliver>();
  for (const target of config.targets) deliverers.set(target.key, delivererFor(target));

  function delivererFor(target: CompiledTarget): Deliver {
    if (target.kind === 'webhook') {
      agent ??= createHttpAgent(config.retry.timeoutMs);
      const pool = agent;
      return (entry, _attempt, signal) =>
        sendHttp(target, entry.event, {
          agent: pool,
          timeoutMs: config.retry.timeoutMs,
          deliveryId: entry.id,
          signal,
        });
    }
    const transport = createMailTransport(target, config.retry.timeoutMs);
    transports.push(transport);
    return (entry) => sendEmail(transport, target, entry.event, entry.id);
  }

  const dispatcher: Dispatcher = createDispatcher(outbox, deliverers, config.retry, emit);
  // What an earlier process left behind is delivered first, in its original order.
  for (const entry of outbox.recovered) dispatcher.enqueue(entry);
  if (outbox.skippedLines > 0) {
    const error = new Error(
      `outbox: skipped ${outbox.skippedLines} unreadable line(s) adopted into ${outbox.file}`,
    );
    // Reported once the host has had the chance to listen (and createGuard to apply the plugin).
    setImmediate(() => emit('webhooks:error', { error }));
  }

  const targets = config.targets;
  let closed = false;
  // Delivery ids are UUID-shaped: a random prefix per plugin instance plus a counter. Unique across restarts
  // (the prefix is new each start), and cheaper than randomUUID() per event on the decision path.
  const idPrefix = randomUUID().slice(0, 24);
  let sequence = 0;
  const nextId = () => `${idPrefix}${(sequence++).toString(16).padStart(12, '0')}`;

  function checkedNotify(event: NotificationEvent): number {
    // The public entry point: a host's malformed event is a clear error, never a garbage notification.
    if (
      event === null ||
      typeof event !== 'object' ||
      !Object.hasOwn(SEVERITY_ORDER, event.severity) ||
      (event.event !== 'security.violation' && event.event !== 'approval.requested')
    ) {
      throw new ToolgateError(
        'TOOLGATE_ERR_INVALID_OPTIONS',
        `webhooks.notify: event must be a NotificationEvent with a known severity and event kind, got ${describeValue(event)}`,
        { field: 'event' },
      );
    }
    return notify(event);
  }

  function notify(event: NotificationEvent): number {
    const level = SEVERITY_ORDER[event.severity];
    let queued = 0;
    for (const target of targets) {
      if (level < target.min || !target.events.has(event.event)) continue;
      const entry = { id: nextId(), target: target.key, event, attempts: 0, at: Date.now() };
      dispatcher.counters.enqueued++;
      if (!outbox.put(entry)) {
        // Bounded: past maxPending the event is written to the dead-letter file, counted and announced.
        dispatcher.counters.overflowed++;
        dispatcher.counters.deadLettered++;
        outbox.dead({
          id: entry.id,
          target: entry.target,
          reason: 'outbox-full',
          detail: `more than ${config.maxPending} events pending`,
          attempts: 0,
          at: entry.at,
          event,
        });
        emit('webhooks:dead-letter', {
          id: entry.id,
          target: entry.target,
          reason: 'outbox-full',
          attempts: 0,
        });
        continue;
      }
      // After close() the entry is appended to the outbox file for the next start; nothing sends it now.
      if (!closed) dispatcher.enqueue(entry);
      queued++;
    }
    return queued;
  }

  // What the taps hand over: raw violations and prompt requests, turned into events one event-loop turn later.
  // Severity, the event object and the outbox entry (a few microseconds together) are thus never part of a
  // decision; an array push is. The inbox is bounded: when it is full the tap does the work inline instead.
  type Raw = { violation: Violation } | { request: PromptRequest; at: number };
  let inbox: Raw[] = [];
  let inboxScheduled = false;

  function processInbox(): void {
    inboxScheduled = false;
    if (inbox.length === 0) return;
    const batch = inbox;
    inbox = [];
    for (const raw of batch) {
      try {
        notify(
          'violation' in raw
            ? violationEvent(raw.violation, config.userOf)
            : promptEvent(raw.request, config.userOf, raw.at),
        );
      } catch (error) {
        emit('webhooks:error', { error });
      }
    }
  }

  function accept(raw: Raw): void {
    if (inbox.length >= config.maxPending) processInbox();
    inbox.push(raw);
    if (!inboxScheduled) {
      inboxScheduled = true;
      setImmediate(processInbox);
    }
  }

  return {
    name: 'webhooks',
    events,
    outboxFile: outbox.file,
    deadLetterFile: outbox.deadLetterFile,
    targets: targets.map((t) => t.key),
    apply(hooks, api) {
      apis.push(api);
      if (targets.length === 0) return;
      // The guard awaits observers before it returns a decision, so this tap only records the violation.
      hooks.onViolation.tap({ stage: Stage.NOTIFY }, (violation) => {
        accept({ violation });
      });
      if (config.notifyPrompts) {
        hooks.onPrompt.tap({ stage: Stage.APPROVAL - 1 }, (request) => {
          accept({ request, at: Date.now() });
          return undefined;
        });
      }
    },
    notify: checkedNotify,
    flush: (timeoutMs = 10_000) => {
      processInbox();
      return closed ? Promise.resolve(outbox.size === 0) : dispatcher.flush(timeoutMs);
    },
    async close() {
      if (closed) return;
      // Whatever the taps recorded is queued (and so persisted by outbox.close) before the sender stops.
      processInbox();
      closed = true;
      await dispatcher.close();
      await outbox.close();
      for (const t of transports) t.close();
      await agent?.close().catch(() => undefined);
    },
    stats: () => {
      processInbox();
      return dispatcher.stats();
    },
  };
}
