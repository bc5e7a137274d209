import { UsageError } from '../exitCodes.js';

/** The gateway's numeric flags as `toolgate mcp` takes them (strings), before anything starts. */
export interface GatewayNumberFlags {
  requestTimeout?: string;
  maxFrameBytes?: string;
  restart?: string;
}

export interface GatewayNumbers {
  requestTimeoutMs?: number;
  maxFrameBytes?: number;
  restart?: number;
}

// setTimeout's largest delay; a longer one fires at once (Node clamps it to 1 ms).
const MAX_TIMER_MS = 2 ** 31 - 1;
// One frame is one string in memory: past 1 GiB Node cannot hold it (its string limit is ~512 MiB–1 GiB).
const MAX_FRAME = 2 ** 30;

function whole(flag: string, value: string, min: number, max: number, unit: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(
      `${flag} must be a whole number of ${unit} from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return n;
}

/**
 * `--request-timeout MS`, `--max-frame-bytes N`, `--restart N` as the gateway's `requestTimeoutMs`,
 * `maxFrameBytes` and `restart`; a bad value is a usage error (exit 2) naming the flag and the value.
 */
export function gatewayNumbers(o: GatewayNumberFlags): GatewayNumbers {
  return {
    ...(o.requestTimeout !== undefined
      ? { requestTimeoutMs: whole('--request-timeout', o.requestTimeout, 1, MAX_TIMER_MS, 'milliseconds') }
      : {}),
    ...(o.maxFrameBytes !== undefined
      ? { maxFrameBytes: whole('--max-frame-bytes', o.maxFrameBytes, 1024, MAX_FRAME, 'bytes') }
      : {}),
    ...(o.restart !== undefined ? { restart: whole('--restart', o.restart, 0, 1000, 'restarts') } : {}),
  };
}
