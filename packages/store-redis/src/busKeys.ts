import type { ApprovalAnswerMessage, ApprovalMessage } from '@toolgate/core';

/** Where the bus keeps things, under one prefix (default `toolgate:`). */
export interface BusKeys {
  /** The stream of questions (`XADD`), read by every desk. */
  stream: string;
  /** Pub/sub channel of raised and settled events. */
  events: string;
  /** `<deadline>|<owner token>` while a question may be answered. */
  question(id: string): string;
  /** The settlement (answer, timeout or withdrawal): set once (`SET NX`), never overwritten. */
  answer(id: string): string;
}

export function busKeys(prefix: string): BusKeys {
  return {
    stream: `${prefix}approvals`,
    events: `${prefix}approvals:events`,
    question: (id) => `${prefix}question:${id}`,
    answer: (id) => `${prefix}answer:${id}`,
  };
}

/** How a question settled, as stored under its answer key. */
export type Settlement =
  | { cause: 'answered'; answer: ApprovalAnswerMessage }
  | { cause: 'timeout' | 'withdrawn' };

/** What travels on the events channel. */
export type BusEvent =
  | { type: 'raised'; message: ApprovalMessage }
  | ({ type: 'settled'; id: string } & Settlement);

/** How long an answer key outlives its question's deadline (late answers still find it settled). */
export const SETTLED_GRACE_MS = 10 * 60_000;

/** Questions kept in the stream (approximate trim, `MAXLEN ~`). */
export const STREAM_MAX = 10_000;

export function parseEvent(text: string): BusEvent | undefined {
  try {
    const e = JSON.parse(text) as BusEvent;
    if (e === null || typeof e !== 'object') return undefined;
    if (e.type === 'raised' && e.message && typeof e.message.id === 'string') return e;
    if (e.type === 'settled' && typeof e.id === 'string') return e;
  } catch {
    /* not ours */
  }
  return undefined;
}

export function parseSettlement(text: string | null | undefined): Settlement | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const s = JSON.parse(text) as Settlement;
    if (s && (s.cause === 'answered' || s.cause === 'timeout' || s.cause === 'withdrawn')) return s;
  } catch {
    /* unreadable: treated as settled by the caller */
  }
  return undefined;
}

/** Checks a question before it is published: a malformed one is an error for the asker (denied). */
export function checkMessage(m: ApprovalMessage): string | undefined {
  if (m === null || typeof m !== 'object') return 'the question is not an object';
  if (typeof m.id !== 'string' || m.id === '') return 'id must be a non-empty string';
  if (typeof m.sessionId !== 'string') return 'sessionId must be a string';
  if (typeof m.agentId !== 'string') return 'agentId must be a string';
  if (typeof m.tool !== 'string') return 'tool must be a string';
  if (typeof m.summary !== 'string') return 'summary must be a string';
  if (typeof m.deadline !== 'number' || !Number.isFinite(m.deadline)) return 'deadline must be epoch ms';
  return undefined;
}
