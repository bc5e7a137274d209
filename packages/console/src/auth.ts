import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A logged-in browser: its cookie value names it; its CSRF token must come with every state change. */
export interface Session {
  id: string;
  csrf: string;
  expiresAt: number;
}

export interface AuthOptions {
  token: string;
  loginCodeTtlMs: number;
  sessionTtlMs: number;
  now: () => number;
}

export const COOKIE = 'tg_console';

const random = (bytes: number) => randomBytes(bytes).toString('base64url');

/** Compares in constant time (for equal lengths), so a secret cannot be guessed byte by byte. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer token of an `Authorization` header, if it carries one. */
export function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer ([^\s]+)$/.exec(header ?? '');
  return m?.[1];
}

/** The value of one cookie in a `Cookie` header. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The console's credentials: one bearer token (scripts, the JSON/SSE API), one-time login codes that a
 * browser exchanges for a session cookie, and the sessions. Codes are single use and short lived, so a login
 * link that leaks (terminal scrollback, a screenshot) is worthless once used or after a few minutes.
 */
export class Auth {
  readonly #codes = new Map<string, number>();
  readonly #sessions = new Map<string, Session>();

  constructor(readonly options: AuthOptions) {}

  /** A fresh one-time login code. */
  newLoginCode(): string {
    const code = random(24);
    this.#codes.set(code, this.options.now() + this.options.loginCodeTtlMs);
    return code;
  }

  /** Spends a login code: a new session for a valid one, `undefined` for anything else (used, expired, wrong). */
  login(code: string | null): Session | undefined {
    const now = this.options.now();
    for (const [c, exp] of this.#codes) if (exp <= now) this.#codes.delete(c);
    if (code === null) return undefined;
    // Looked up by exact key; timing reveals nothing useful for a 192-bit random code.
    const exp = this.#codes.get(code);
    if (exp === undefined) return undefined;
    this.#codes.delete(code);
    const session: Session = { id: random(32), csrf: random(32), expiresAt: now + this.options.sessionTtlMs };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session named by a cookie value. */
  session(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const s = this.#sessions.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.options.now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return s;
  }

  logout(id: string): void {
    this.#sessions.delete(id);
  }

  tokenMatches(header: string | undefined): boolean {
    return sameSecret(bearerOf(header), this.options.token);
  }

  /** A generated bearer token (when none is configured). */
  static newToken(): string {
    return random(32);
  }
}
