import type { ChainReport } from '@toolgate/audit-log';
import type { Auth, Session } from './auth.js';
import type { CompiledConsoleOptions } from './options.js';
import type { SseChannel } from './sse.js';

/** Who made a request: a browser session, or (no session) the holder of the bearer token. */
export interface Who {
  session?: Session;
}

/** What every route of one console shares. */
export interface ConsoleContext {
  o: CompiledConsoleOptions;
  auth: Auth;
  /** `audit verify` of the trail, cached; absent without a trail. */
  verify: (() => Promise<ChainReport | { missing: true }>) | undefined;
  /** Open event streams, closed when the console closes. */
  channels: Set<SseChannel>;
  /** A fresh one-time login link. */
  loginLink(): string;
}
