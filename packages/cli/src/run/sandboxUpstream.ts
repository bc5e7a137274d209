import { type CompiledNetworkPolicy, normaliseHost } from '@toolgate/core';
import { type Upstream, upstreamFromEnv } from '@toolgate/sandbox';

/**
 * The machine's own HTTP proxy for the sandbox's proxy to go through (HTTPS_PROXY/HTTP_PROXY/NO_PROXY of the
 * environment `toolgate run` or `sandbox-exec` runs in) — only when the policy's network section allows that
 * proxy's host: every byte an allowed connection sends passes through it, so it is a host the data reaches,
 * and an environment the agent may have set (`export HTTPS_PROXY=http://evil…` in an earlier call) must not
 * pick it. Otherwise connections go straight out, with a warning saying why.
 */
export function sandboxUpstream(
  policy: CompiledNetworkPolicy,
  env: Readonly<Record<string, string | undefined>>,
): { upstream?: Upstream; warning?: string } {
  const { upstream, skipped } = upstreamFromEnv(env);
  if (skipped !== undefined)
    return { warning: `toolgate: ${skipped}; the sandbox's network proxy connects directly` };
  if (upstream === undefined) return {};
  const host = normaliseHost(upstream.host) ?? upstream.host;
  const verdict = policy.decide({ host, port: upstream.port, scheme: 'http', method: 'write' });
  if (verdict.action === 'allow') return { upstream };
  return {
    warning: `toolgate: the environment's proxy ${host}:${upstream.port} is not allowed by the policy's network section (${verdict.rule}); the sandbox's network proxy connects directly — allow that host to go through it`,
  };
}
