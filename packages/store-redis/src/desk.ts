import { hostname } from 'node:os';
import type { ApprovalDesk, DeskAnswer, DeskEvent, DeskItem } from '@toolgate/approvals';
import type { ApprovalMessage } from '@toolgate/core';
import { Subject } from 'rxjs';
import {
  type BusEvent,
  busKeys,
  parseEvent,
  parseSettlement,
  SETTLED_GRACE_MS,
  type Settlement,
  STREAM_MAX,
} from './busKeys.js';
import { RESPOND_LUA } from './busScripts.js';
import {
  type Connection,
  checkConnectionOptions,
  connect,
  invalid,
  type RedisConnectionOptions,
  unreachable,
} from './connection.js';

export interface RedisDeskOptions extends RedisConnectionOptions {
  /** The desk's name (default `redis-desk`). */
  name?: string;
  /**
   * Share the questions with other desks of this consumer group (a pool of bots): each question is delivered
   * to one desk of the group (`XREADGROUP`), acknowledged (`XACK`) once it settles, and redelivered to this
   * consumer after a restart while it is still waiting. Absent (a console): this desk sees every question.
   */
  group?: string;
  /** This desk's name in the group (default `<host>:<pid>`). */
  consumer?: string;
}

/** An ApprovalDesk over Redis, with what a host needs to shut it down. */
export interface RedisDesk extends ApprovalDesk {
  /** Resolves once the desk has read what is waiting (after connecting); rejects if Redis cannot be read. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface Open {
  item: DeskItem;
  timer: NodeJS.Timeout;
}

/** The item a question carries (`detail`, the approvals plugin's DeskItem), or a plain one built from it. */
function itemOf(m: ApprovalMessage): DeskItem {
  const d = m.detail as Partial<DeskItem> | undefined;
  const base: DeskItem = {
    id: m.id,
    sessionId: m.sessionId,
    agentId: m.agentId,
    tool: m.tool,
    items: [],
    deadline: m.deadline,
    raisedAt: Date.now(),
    cwd: '',
    args: m.summary,
    accesses: [],
    hosts: [],
    origin: '',
  };
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return base;
  // The question's own fields win over its detail: they are what the bus and the asker go by.
  return {
    ...base,
    ...d,
    id: m.id,
    sessionId: m.sessionId,
    agentId: m.agentId,
    tool: m.tool,
    deadline: m.deadline,
  } as DeskItem;
}

function checkDeskAnswer(name: string, answer: DeskAnswer): DeskAnswer {
  const where = `${name}.respond`;
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
    throw invalid(where, 'answer', answer, 'an object');
  if (typeof answer.approved !== 'boolean')
    throw invalid(where, 'answer.approved', answer.approved, 'a boolean');
  if (typeof answer.by !== 'string' || answer.by === '')
    throw invalid(where, 'answer.by', answer.by, 'a non-empty string');
  if (answer.grant !== undefined && !['once', 'directory', 'subtree'].includes(answer.grant))
    throw invalid(where, 'answer.grant', answer.grant, '"once", "directory" or "subtree"');
  if (answer.reason !== undefined && typeof answer.reason !== 'string')
    throw invalid(where, 'answer.reason', answer.reason, 'a string');
  for (const k of ['persist', 'cancelSession'] as const)
    if (answer[k] !== undefined && typeof answer[k] !== 'boolean')
      throw invalid(where, `answer.${k}`, answer[k], 'a boolean');
  for (const k of ['ttlMs', 'maxUses'] as const) {
    const v = answer[k];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v > 0))
      throw invalid(where, `answer.${k}`, v, 'a positive number');
  }
  // Only known fields travel: nothing else a caller attached reaches the asking machine.
  const out: DeskAnswer = { approved: answer.approved, by: answer.by };
  for (const k of ['grant', 'persist', 'ttlMs', 'maxUses', 'cancelSession', 'reason'] as const)
    if (answer[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = answer[k];
  return out;
}

function settledEvent(id: string, s: Settlement | undefined): DeskEvent {
  if (s?.cause === 'answered')
    return {
      type: 'settled',
      id,
      cause: 'answered',
      approved: s.answer.approved,
      by: s.answer.by,
      ...(s.answer.reason !== undefined ? { reason: s.answer.reason } : {}),
    };
  if (s?.cause === 'withdrawn') return { type: 'settled', id, cause: 'withdrawn' };
  return { type: 'settled', id, cause: 'timeout', approved: false, reason: 'no answer by the deadline' };
}

/**
 * The console's ApprovalDesk for a fleet: every question any machine raised on this Redis (`redisApprovalBus`
 * with the approvals plugin's `busStrategy`), live. `pending()` is a local mirror — read from the question
 * stream minus what is settled or past its deadline when the desk connects (and again after each reconnect),
 * then kept by the bus's events; `respond` is the exactly-once answer (a Lua script: the question must still
 * exist, its deadline not passed by Redis's clock, and no answer written before — `SET NX`), so of two
 * consoles, two tabs or a console and a bot answering at once exactly one gets `true`.
 *
 * A desk never approves on its own: when Redis is unreachable `respond` rejects and questions settle as
 * `timeout` at their deadline (the asking machines deny).
 *
 * @example
 * ```ts
 * import { redisDesk } from '@toolgate/store-redis';
 * const desk = redisDesk({ url: 'redis://127.0.0.1:6379' });
 * desk.events$.subscribe((e) => {
 *   if (e.type === 'raised') void desk.respond(e.item.id, { approved: false, by: 'bot', reason: 'no' });
 * });
 * ```
 */
export function redisDesk(options: RedisDeskOptions): RedisDesk {
  const prefix = checkConnectionOptions('redisDesk', options, ['name', 'group', 'consumer']);
  const name = options.name ?? 'redis-desk';
  if (typeof name !== 'string' || name === '') throw invalid('redisDesk', 'name', name, 'a non-empty string');
  const group = options.group;
  if (group !== undefined && (typeof group !== 'string' || group === ''))
    throw invalid('redisDesk', 'group', group, 'a non-empty string');
  const consumer = options.consumer ?? `${hostname()}:${process.pid}`;
  if (typeof consumer !== 'string' || consumer === '')
    throw invalid('redisDesk', 'consumer', consumer, 'a non-empty string');
  const { name: _n, group: _g, consumer: _c, ...connection } = options;
  const keys = busKeys(prefix);
  const commands: Connection = connect(connection, 'desk');
  const subscriber: Connection = connect(connection, 'desk-events');
  const open = new Map<string, Open>();
  // Group mode: the stream entry each question came in, acknowledged when it settles.
  const entries = new Map<string, string>();
  // Settled ids seen recently: a resync that reads an old stream entry must not raise it again.
  const settled = new Map<string, number>();
  const events = new Subject<DeskEvent>();
  let closed = false;
  const emit = (e: DeskEvent) => {
    try {
      events.next(e);
    } catch {
      /* a reader's error never reaches the desk */
    }
  };

  const ack = (id: string) => {
    const entry = entries.get(id);
    if (group === undefined || entry === undefined) return;
    entries.delete(id);
    commands.redis.xack(keys.stream, group, entry).catch(() => {
      /* unacknowledged: redelivered to this consumer after a restart, and settled then */
    });
  };
  const settle = (id: string, s: Settlement | undefined) => {
    settled.set(id, Date.now());
    if (settled.size % 1024 === 0) forgetOld();
    ack(id);
    const o = open.get(id);
    if (!o) return;
    open.delete(id);
    clearTimeout(o.timer);
    emit(settledEvent(id, s));
  };
  const add = (m: ApprovalMessage) => {
    if (closed || open.has(m.id) || settled.has(m.id)) return;
    const wait = m.deadline - Date.now();
    if (!(wait > 0)) return;
    const item = itemOf(m);
    const timer = setTimeout(() => settle(m.id, undefined), wait);
    timer.unref?.();
    open.set(m.id, { item, timer });
    emit({ type: 'raised', item });
  };
  const forgetOld = () => {
    const before = Date.now() - SETTLED_GRACE_MS;
    for (const [id, at] of settled) if (at < before) settled.delete(id);
  };

  subscriber.redis.on('message', (channel: string, text: string) => {
    if (channel !== keys.events) return;
    const event: BusEvent | undefined = parseEvent(text);
    if (!event) return;
    // A desk of a group takes only what the group delivers to it.
    if (event.type === 'raised') {
      if (group === undefined) add(event.message);
    } else settle(event.id, event);
  });

  // What is waiting now: the stream's questions whose deadline has not passed and which have no settlement.
  const resync = async () => {
    forgetOld();
    const entries = (await commands.redis.xrevrange(keys.stream, '+', '-', 'COUNT', STREAM_MAX)) as [
      string,
      string[],
    ][];
    const now = Date.now();
    const live: ApprovalMessage[] = [];
    for (const [, fields] of entries) {
      const i = fields.indexOf('message');
      if (i < 0 || i + 1 >= fields.length) continue;
      try {
        const m = JSON.parse(fields[i + 1] as string) as ApprovalMessage;
        if (typeof m?.id === 'string' && typeof m.deadline === 'number' && m.deadline > now) live.push(m);
      } catch {
        /* not a question */
      }
    }
    const ids = [...new Set([...live.map((m) => m.id), ...open.keys()])];
    const values = ids.length > 0 ? await commands.redis.mget(...ids.map((id) => keys.answer(id))) : [];
    const answered = new Map<string, Settlement>();
    ids.forEach((id, i) => {
      const v = values[i];
      if (v !== null && v !== undefined) answered.set(id, parseSettlement(v) ?? { cause: 'withdrawn' });
    });
    for (const [id, s] of answered) settle(id, s);
    // Oldest first (the stream was read newest first), so pending() keeps raise order.
    if (group === undefined) for (const m of live.reverse()) if (!answered.has(m.id)) add(m);
  };

  // Group mode: questions delivered to this consumer (its own pending ones first, then new ones).
  const reader: Connection | undefined = group !== undefined ? connect(connection, 'desk-group') : undefined;
  const blockMs = Math.max(Math.min(1_000, Math.floor((options.commandTimeoutMs ?? 2_000) / 2)), 10);
  const take = async (rows: unknown) => {
    const streams = (rows ?? []) as [string, [string, string[]][]][];
    const fresh: [string, ApprovalMessage][] = [];
    for (const [, list] of streams)
      for (const [entry, fields] of list) {
        const i = fields.indexOf('message');
        let m: ApprovalMessage | undefined;
        try {
          m = i >= 0 ? (JSON.parse(fields[i + 1] as string) as ApprovalMessage) : undefined;
        } catch {
          m = undefined;
        }
        if (!m || typeof m.id !== 'string' || typeof m.deadline !== 'number') {
          await commands.redis.xack(keys.stream, group as string, entry);
          continue;
        }
        fresh.push([entry, m]);
      }
    if (fresh.length === 0) return;
    const values = await commands.redis.mget(...fresh.map(([, m]) => keys.answer(m.id)));
    for (const [k, [entry, m]] of fresh.entries()) {
      entries.set(m.id, entry);
      if (values[k] !== null && values[k] !== undefined) {
        settle(m.id, parseSettlement(values[k]) ?? { cause: 'withdrawn' });
        ack(m.id);
      } else if (m.deadline <= Date.now()) ack(m.id);
      else add(m);
    }
  };
  const joinGroup = async () => {
    if (!reader || group === undefined) return;
    try {
      await commands.redis.xgroup('CREATE', keys.stream, group, '0', 'MKSTREAM');
    } catch (error) {
      if (!String(error).includes('BUSYGROUP')) throw error;
    }
    // What was delivered to this consumer before (a restart) and never acknowledged.
    await take(
      await reader.redis.xreadgroup('GROUP', group, consumer, 'COUNT', 1000, 'STREAMS', keys.stream, '0'),
    );
  };
  let reading = false;
  const startGroup = async () => {
    if (group === undefined || reading) return;
    reading = true;
    try {
      await joinGroup();
    } catch (error) {
      reading = false;
      throw error;
    }
    void readGroup();
  };
  const readGroup = async () => {
    if (!reader || group === undefined) return;
    while (!closed) {
      try {
        await take(
          await reader.redis.xreadgroup(
            'GROUP',
            group,
            consumer,
            'COUNT',
            100,
            'BLOCK',
            blockMs,
            'STREAMS',
            keys.stream,
            '>',
          ),
        );
      } catch (error) {
        if (closed) return;
        // Redis away: questions settle at their deadlines meanwhile; try again shortly. A restarted Redis
        // without persistence has lost the group: joined again.
        await new Promise((r) => setTimeout(r, 200));
        if (String(error).includes('NOGROUP')) await joinGroup().catch(() => {});
      }
    }
  };

  let first: Promise<void> | undefined;
  const start = () => {
    first = (async () => {
      await subscriber.redis.subscribe(keys.events);
      await resync();
      await startGroup();
    })();
    first.catch(() => {});
    return first;
  };
  start();
  // After a reconnect: events published while away were missed; the stream and answer keys are not.
  let connectedOnce = false;
  subscriber.redis.on('ready', () => {
    if (!connectedOnce) {
      connectedOnce = true;
      return;
    }
    resync().catch(() => {});
    startGroup().catch(() => {});
  });

  return {
    name,
    events$: events.asObservable(),
    pending: () => [...open.values()].map((o) => o.item).sort((a, b) => a.raisedAt - b.raisedAt),
    async respond(id, answer) {
      const checked = checkDeskAnswer(name, answer);
      if (typeof id !== 'string' || id === '') return false;
      const o = open.get(id);
      if (o && Date.now() >= o.item.deadline) return false;
      const settlement: Settlement = { cause: 'answered', answer: { ...checked, id } };
      const deadline = o?.item.deadline ?? Date.now();
      let result: unknown;
      try {
        result = await commands.redis.eval(
          RESPOND_LUA,
          2,
          keys.question(id),
          keys.answer(id),
          JSON.stringify(settlement),
          keys.events,
          JSON.stringify({ type: 'settled', id, ...settlement }),
          String(Math.ceil(Math.max(deadline - Date.now(), 1) + SETTLED_GRACE_MS)),
        );
      } catch (error) {
        throw new Error(`${name}: cannot answer ${id}: ${unreachable(commands, error)}`);
      }
      if (Number(result) !== 1) return false;
      settle(id, settlement);
      return true;
    },
    ready: () => first ?? start(),
    async close() {
      closed = true;
      for (const o of open.values()) clearTimeout(o.timer);
      open.clear();
      events.complete();
      await Promise.all([commands.close(), subscriber.close(), reader?.close()]);
    },
  };
}
