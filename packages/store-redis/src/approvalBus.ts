import { randomBytes } from 'node:crypto';
import type { ApprovalAnswerMessage, ApprovalBus, ApprovalMessage } from '@toolgate/core';
import {
  busKeys,
  checkMessage,
  parseEvent,
  parseSettlement,
  SETTLED_GRACE_MS,
  STREAM_MAX,
} from './busKeys.js';
import { PUBLISH_LUA, WITHDRAW_LUA } from './busScripts.js';
import {
  type Connection,
  checkConnectionOptions,
  connect,
  isReady,
  type RedisConnectionOptions,
  unreachable,
} from './connection.js';

export type RedisApprovalBusOptions = RedisConnectionOptions;

/** An ApprovalBus on Redis, with what a host needs to shut it down. */
export interface RedisApprovalBus extends ApprovalBus {
  readonly name: string;
  close(): Promise<void>;
}

interface Waiter {
  onAnswer: (answer: ApprovalAnswerMessage) => void;
  onError?: ((error: Error) => void) | undefined;
  timer?: NodeJS.Timeout | undefined;
}

interface Asked {
  message: ApprovalMessage;
  token: string;
}

/** The deadline check runs this long before the deadline, so its clear error beats the plain timeout. */
const DEADLINE_LEAD_MS = 25;

/**
 * The asking side of approvals over Redis: `publish` raises a question (`XADD <prefix>approvals`, a
 * `raised` event, and a question key carrying its deadline); `answers` waits for the one answer that wins
 * (the first `respond` of any desk, settled with `SET NX`), delivered through one pub/sub subscription per
 * process and re-read from the answer key after a reconnect, so an answer given while this machine was
 * cut off is not lost. At most one answer per question reaches `onAnswer`.
 *
 * Fail closed: a question that cannot be published rejects (the strategy denies); when Redis is down at a
 * question's deadline, `onError` says so (the strategy denies with that reason); the approvals plugin's own
 * timeout denies whatever arrives later. Questions still waiting are raised again when Redis comes back
 * (a restarted Redis without persistence has lost them).
 *
 * @example
 * ```ts
 * import { approvals, busStrategy } from '@toolgate/approvals';
 * import { redisApprovalBus } from '@toolgate/store-redis';
 * const bus = redisApprovalBus({ url: 'redis://127.0.0.1:6379' });
 * const plugin = approvals({ strategy: busStrategy(bus), timeoutMs: 60_000 });
 * ```
 */
export function redisApprovalBus(options: RedisApprovalBusOptions): RedisApprovalBus {
  const prefix = checkConnectionOptions('redisApprovalBus', options);
  const keys = busKeys(prefix);
  const commands: Connection = connect(options, 'approvals');
  const subscriber: Connection = connect(options, 'approvals-answers');
  const waiters = new Map<string, Waiter>();
  const asked = new Map<string, Asked>();
  let closed = false;
  // Set while either connection is down; cleared once both are back and waiting questions were re-read.
  let degraded: string | undefined;

  const deliver = (id: string, answer: ApprovalAnswerMessage) => {
    const w = waiters.get(id);
    if (!w) return;
    waiters.delete(id);
    asked.delete(id);
    if (w.timer) clearTimeout(w.timer);
    try {
      w.onAnswer({ ...answer, id });
    } catch {
      /* the asker's callback failing is the asker's */
    }
  };

  let subscribed: Promise<void> = subscriber.redis.subscribe(keys.events).then(() => undefined);
  subscribed.catch(() => {});
  subscriber.redis.on('message', (channel: string, text: string) => {
    if (channel !== keys.events) return;
    const event = parseEvent(text);
    if (event?.type === 'settled' && event.cause === 'answered') deliver(event.id, event.answer);
  });

  // At the deadline (a little before), a Redis that is down is named as the reason for the denial.
  const arm = (requestId: string, w: Waiter, deadline: number) => {
    if (w.timer) return;
    w.timer = setTimeout(
      () => {
        if (waiters.get(requestId) !== w) return;
        const why =
          degraded ??
          (!isReady(commands) || !isReady(subscriber) ? unreachable(commands, 'not connected') : undefined);
        if (why === undefined) return;
        waiters.delete(requestId);
        asked.delete(requestId);
        try {
          w.onError?.(new Error(`no answer by the deadline: ${why}`));
        } catch {
          /* the asker's own */
        }
      },
      Math.max(deadline - DEADLINE_LEAD_MS - Date.now(), 0),
    );
    w.timer.unref?.();
  };

  const raise = async (a: Asked): Promise<number> => {
    const m = a.message;
    const ttl = Math.max(m.deadline - Date.now(), 1) + SETTLED_GRACE_MS;
    const result = await commands.redis.eval(
      PUBLISH_LUA,
      2,
      keys.question(m.id),
      keys.stream,
      String(Math.floor(m.deadline)),
      a.token,
      String(Math.ceil(ttl)),
      JSON.stringify(m),
      keys.events,
      JSON.stringify({ type: 'raised', message: m }),
      m.id,
      String(STREAM_MAX),
    );
    return Number(result);
  };

  // After a reconnect: answers given while this machine was away are read from their keys, and questions
  // Redis lost (a restart without persistence) are raised again while their deadline has not passed.
  const resync = async () => {
    if (!isReady(commands) || !isReady(subscriber)) return;
    const ids = [...waiters.keys()];
    try {
      if (ids.length > 0) {
        const values = await commands.redis.mget(...ids.map((id) => keys.answer(id)));
        ids.forEach((id, i) => {
          const s = parseSettlement(values[i]);
          if (s?.cause === 'answered') deliver(id, s.answer);
        });
        for (const id of ids) {
          const a = asked.get(id);
          if (a && waiters.has(id) && a.message.deadline > Date.now()) await raise(a);
        }
      }
      degraded = undefined;
    } catch (error) {
      degraded = unreachable(commands, error);
    }
  };
  const down = (c: Connection) => () => {
    if (!closed && degraded === undefined) degraded = unreachable(c, c.lastError() ?? 'connection lost');
  };
  for (const c of [commands, subscriber]) {
    c.redis.on('close', down(c));
    c.redis.on('reconnecting', down(c));
    c.redis.on('ready', () => void resync());
  }
  // ioredis re-subscribes by itself after a reconnect; the subscription promise is renewed for publish().
  subscriber.redis.on('ready', () => {
    subscribed = Promise.resolve();
  });

  return {
    name: 'redis',
    async publish(message) {
      const problem = checkMessage(message);
      if (problem) throw new Error(`redisApprovalBus.publish: ${problem}`);
      if (closed) throw new Error('redisApprovalBus is closed');
      const a: Asked = { message: { ...message }, token: randomBytes(9).toString('base64url') };
      try {
        // Listening before asking: an answer given at once must find this process subscribed.
        await subscribed;
        asked.set(message.id, a);
        const result = await raise(a);
        if (result === -1) {
          asked.delete(message.id);
          throw new Error(`question id ${JSON.stringify(message.id)} is already in use by another asker`);
        }
        const w = waiters.get(message.id);
        if (w) arm(message.id, w, a.message.deadline);
      } catch (error) {
        asked.delete(message.id);
        if (error instanceof Error && error.message.startsWith('question id')) throw error;
        throw new Error(`cannot ask for approval through Redis: ${unreachable(commands, error)}`);
      }
    },
    answers(requestId, onAnswer, onError) {
      const w: Waiter = { onAnswer, onError };
      waiters.set(requestId, w);
      const deadline = asked.get(requestId)?.message.deadline;
      if (deadline !== undefined) arm(requestId, w, deadline);
      // An answer that was written before this listener existed (or while subscribing) is in its key.
      commands.redis.get(keys.answer(requestId)).then(
        (text) => {
          const s = parseSettlement(text);
          if (s?.cause === 'answered') deliver(requestId, s.answer);
        },
        () => {
          /* the deadline check reports an unreachable Redis */
        },
      );
      return () => {
        if (waiters.get(requestId) === w) {
          waiters.delete(requestId);
          if (w.timer) clearTimeout(w.timer);
        }
      };
    },
    async withdraw(requestId, cause) {
      const a = asked.get(requestId);
      asked.delete(requestId);
      const deadline = a?.message.deadline ?? Date.now();
      const ttl = Math.max(deadline - Date.now(), 1) + SETTLED_GRACE_MS;
      try {
        await commands.redis.eval(
          WITHDRAW_LUA,
          1,
          keys.answer(requestId),
          JSON.stringify({ cause }),
          keys.events,
          JSON.stringify({ type: 'settled', id: requestId, cause }),
          String(Math.ceil(ttl)),
        );
      } catch (error) {
        // Nothing is lost: desks drop a question at its deadline, and a late answer finds no one waiting.
        throw new Error(`cannot withdraw question ${requestId}: ${unreachable(commands, error)}`);
      }
    },
    async close() {
      closed = true;
      for (const w of waiters.values()) if (w.timer) clearTimeout(w.timer);
      waiters.clear();
      asked.clear();
      await Promise.all([commands.close(), subscriber.close()]);
    },
  };
}
