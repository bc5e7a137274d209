/**
 * A one-line description of anything a plugin can throw or reject with. `String(value)` itself throws for
 * `Object.create(null)` (no `toString`), for objects whose `toString` throws and for revoked proxies — and a
 * throw while reporting a throw would escape the containment it is part of and crash the host.
 */
export function describeThrown(value: unknown): string {
  try {
    if (value instanceof Error) {
      const message = value.message;
      if (typeof message === 'string') return message;
    }
    if (typeof value === 'symbol') return value.toString();
    const text = String(value);
    return typeof text === 'string' ? text : 'a non-printable value';
  } catch {
    try {
      return `a thrown ${Object.prototype.toString.call(value)} that cannot be printed`;
    } catch {
      return 'a thrown value that cannot be printed';
    }
  }
}
