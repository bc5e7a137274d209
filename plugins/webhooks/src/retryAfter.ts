/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined if absent or garbled. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP-date form starts with a day name; without this check V8's Date.parse reads "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half random, so retries of many
 * senders spread out while each still waits at least half the nominal time.
 */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const nominal = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return nominal / 2 + random() * (nominal / 2);
}
