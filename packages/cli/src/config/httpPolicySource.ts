import { type PolicyVersion, versionHolder, type WatchedPolicySource } from './filePolicySource.js';

export interface HttpPolicySourceOptions<P> {
  /** Compiles the policy text served at the URL (its content type is given for dialect inference). */
  load: (text: string, contentType: string | undefined) => Promise<PolicyVersion<P>>;
  /** How often to ask (default 5 000 ms). */
  intervalMs?: number;
  /** Send `If-None-Match` with the last ETag, so an unchanged policy costs a 304 (default true). */
  etag?: boolean;
  /** Headers for every request (an `Authorization` header). */
  headers?: Record<string, string>;
  /** A request that takes longer fails (default 10 000 ms); the last good version stays. */
  timeoutMs?: number;
}

/**
 * A policy served over HTTP(S), polled with `If-None-Match` (an unchanged policy is a 304 and nothing is
 * compiled). The first fetch must succeed (a host does not start without a policy); later failures — the
 * server down, a 500, a policy that does not compile — keep the last good version and tell `onError`.
 *
 * @example
 * ```ts
 * const source = await httpPolicySource('https://config.example/toolgate.yaml', {
 *   load: async (text) => {
 *     const policy = await loadPolicy({ file: 'toolgate.yaml', source: text });
 *     return { policy, hash: policy.hash };
 *   },
 * });
 * ```
 */
export async function httpPolicySource<P>(
  url: string,
  options: HttpPolicySourceOptions<P>,
): Promise<WatchedPolicySource<P>> {
  if (typeof url !== 'string' || !/^https?:\/\//.test(url))
    throw new Error(`httpPolicySource: url must be an http(s) URL, got ${JSON.stringify(url)}`);
  if (typeof options?.load !== 'function') throw new Error('httpPolicySource: load must be a function');
  const intervalMs = options.intervalMs ?? 5_000;
  const useEtag = options.etag !== false;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let etag: string | undefined;

  const fetchVersion = async (): Promise<PolicyVersion<P> | undefined> => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (useEtag && etag !== undefined) headers['if-none-match'] = etag;
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 304) return undefined;
    if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
    const text = await response.text();
    const version = await options.load(text, response.headers.get('content-type') ?? undefined);
    // Only a version that compiled moves the ETag: a broken one is fetched (and reported) again.
    etag = response.headers.get('etag') ?? undefined;
    return version;
  };

  const first = await fetchVersion();
  if (first === undefined) throw new Error(`GET ${url}: 304 on the first request`);
  const holder = versionHolder(url, first);
  const reload = () => holder.run(fetchVersion);
  const timer = setInterval(() => void reload(), intervalMs);
  timer.unref?.();
  return {
    current: holder.current,
    subscribe: holder.subscribe,
    onError: holder.onError,
    reload,
    close: () => clearInterval(timer),
  };
}
