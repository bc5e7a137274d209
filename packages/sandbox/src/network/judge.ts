import type { CompiledNetworkPolicy, NetMethod, NetworkRequest, NetworkVerdict } from '@toolgate/core';
import type { ConnectionRecord, ProxyVia } from './connectionRecord.js';

/** What the proxy asks when a rule says `prompt` (a host the policy wants a human to approve). */
export interface PromptRequest extends NetworkRequest {
  rule: string;
  source?: string;
}

export interface JudgeOptions {
  policy: CompiledNetworkPolicy;
  /** Absent: a prompt rule denies (nobody to ask). */
  onPrompt?: ((request: PromptRequest) => Promise<boolean>) | undefined;
  /** How long a client waits for an answer before it is denied (default 60 s). */
  promptTimeoutMs?: number | undefined;
  onConnection?: ((record: ConnectionRecord) => void) | undefined;
}

export interface Judgement {
  action: 'allow' | 'deny';
  rule: string;
  source?: string;
  prompted?: boolean;
}

export type Judge = (
  request: { host: string; port: number; scheme: string; method: NetMethod },
  via: ProxyVia,
) => Promise<Judgement>;

/**
 * Judges each connection with the policy (pure, no I/O), asks `onPrompt` for prompt rules — once per host,
 * port and method for the run, the waiting clients sharing the answer; no answer by the deadline, an error,
 * or no `onPrompt` ⇒ deny — and reports every outcome to `onConnection` (errors there are swallowed: the
 * trail is an observer).
 */
export function createJudge(options: JudgeOptions): Judge {
  const { policy, onPrompt, onConnection } = options;
  const timeout = options.promptTimeoutMs ?? 60_000;
  const answers = new Map<string, Promise<boolean>>();
  const ask = (req: PromptRequest): Promise<boolean> => {
    const key = `${req.method} ${req.host}:${req.port}`;
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeout);
        timer.unref?.();
        Promise.resolve()
          .then(() => (onPrompt ? onPrompt(req) : false))
          .then(
            (yes) => resolve(yes === true),
            () => resolve(false),
          )
          .finally(() => clearTimeout(timer));
      });
      answers.set(key, answer);
    }
    return answer;
  };
  return async (request, via) => {
    let verdict: NetworkVerdict;
    try {
      verdict = policy.decide({ ...request });
    } catch (error) {
      verdict = { action: 'deny', rule: `the policy could not judge it: ${(error as Error).message}` };
    }
    let out: Judgement;
    if (verdict.action === 'prompt') {
      const yes = await ask({
        ...request,
        rule: verdict.rule,
        ...(verdict.source ? { source: verdict.source } : {}),
      });
      out = { action: yes ? 'allow' : 'deny', rule: verdict.rule, prompted: true };
    } else out = { action: verdict.action, rule: verdict.rule };
    if (verdict.source !== undefined) out.source = verdict.source;
    record(onConnection, { ...request, via, ...out, time: Date.now() });
    return out;
  };
}

/** Reports a refusal that never reached the policy (not a host, a protocol the proxy does not speak). */
export function record(
  onConnection: ((record: ConnectionRecord) => void) | undefined,
  rec: ConnectionRecord,
): void {
  try {
    onConnection?.(rec);
  } catch {
    /* an observer */
  }
}
