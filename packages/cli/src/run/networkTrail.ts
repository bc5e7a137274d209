import { randomBytes } from 'node:crypto';
import {
  type CallContext,
  createGuard,
  type GuardPlugin,
  type NetworkAccess,
  type ToolCall,
} from '@toolgate/core';
import type { CompiledPolicy } from '@toolgate/folder-rules';
import type { ConnectionRecord, PromptRequest } from '@toolgate/sandbox';
import { extraPlugins } from '../integrations/extraPlugins.js';

/** The tool name a sandbox proxy's connection is recorded under in the audit trail. */
export const NETWORK_TOOL = 'sandbox:network';

export interface NetworkTrailOptions {
  /** `--audit <file>`: every connection is a record of the trail (besides the dialect's own trail). */
  audit?: string | undefined;
  /** `--approvals <strategy>`: who answers prompt rules; absent ⇒ they are denied. */
  approvals?: string | undefined;
  policy: CompiledPolicy;
  ctx: Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'>;
}

export interface NetworkTrail {
  /** The run's id: the `sessionId` of its records. */
  runId: string;
  onConnection?: (record: ConnectionRecord) => void;
  onPrompt?: (request: PromptRequest) => Promise<boolean>;
  close(): void;
}

interface VerdictArgs {
  host: string;
  port: number;
  scheme: string;
  method: 'read' | 'write';
  via: string;
  verdict: 'allow' | 'deny' | 'prompt';
  rule: string;
  source?: string;
  prompted?: boolean;
}

function reachOf(a: VerdictArgs): NetworkAccess {
  return {
    raw: `${a.scheme}://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`,
    host: a.host,
    port: a.port,
    scheme: a.scheme,
    method: a.method,
    origin: `sandbox-proxy:${a.via}`,
    certain: true,
  };
}

/**
 * The proxy's verdict as a guard's: the connection becomes a call of `sandbox:network` that reaches its host,
 * denied (NETWORK_DENIED) or prompted (NETWORK_PROMPT) as the proxy judged it — so the audit-log plugin
 * records it like any call (host, port, method, rule, the run's id as session), and the approvals plugin asks
 * about it like any prompt. Nothing here judges: the proxy did.
 */
const verdictPlugin: GuardPlugin = {
  name: 'sandbox-network',
  policy: true,
  apply(hooks) {
    hooks.collectAccesses.tap('sandbox-network', (accesses, call, state) => {
      if (call.tool === NETWORK_TOOL) state.reach(reachOf(call.args as unknown as VerdictArgs));
      return accesses;
    });
    hooks.beforeToolCall.tap('sandbox-network', (call, state) => {
      if (call.tool !== NETWORK_TOOL) return undefined;
      const a = call.args as unknown as VerdictArgs;
      const what = `${a.host}:${a.port} (${a.method}, via ${a.via}) from the sandbox`;
      const rule = { pattern: a.rule, access: a.verdict, source: a.source ?? 'network' } as never;
      if (a.verdict === 'deny')
        return {
          action: 'deny',
          code: 'NETWORK_DENIED',
          reason: `the sandbox's network proxy denied ${what}: rule ${a.rule}${a.prompted ? ' (not approved)' : ''}`,
          network: reachOf(a),
          rule,
        };
      if (a.verdict === 'prompt')
        state.prompt({
          code: 'NETWORK_PROMPT',
          reason: `the sandboxed command connects to ${what}: rule ${a.rule}`,
          network: reachOf(a),
          rule,
        });
      return undefined;
    });
  },
};

/**
 * Where a sandboxed run's connections go: the audit trail (`--audit`, or the dialect's own), and who answers
 * the policy's prompt rules (`--approvals`). Both built from the same plugins the other commands use.
 */
export async function networkTrail(options: NetworkTrailOptions): Promise<NetworkTrail> {
  const runId = `run-${randomBytes(6).toString('hex')}`;
  const extra = await extraPlugins({
    ...(options.audit !== undefined ? { audit: options.audit } : {}),
    ...(options.approvals !== undefined ? { approvals: options.approvals } : {}),
    env: options.ctx.env ?? process.env,
  });
  const plugins = await extra.pluginsFor(options.policy, options.ctx.home);
  const audit = plugins.filter((p) => p.name === 'audit-log');
  const approvals = plugins.filter((p) => p.name === 'approvals');
  const ctx: CallContext = {
    sessionId: runId,
    agentId: 'sandbox',
    cwd: options.ctx.cwd,
    workspace: options.ctx.workspace,
    home: options.ctx.home,
    env: { ...(options.ctx.env ?? {}) },
  };
  const call = (args: VerdictArgs): ToolCall => ({ tool: NETWORK_TOOL, args: { ...args } });
  const auditGuard = audit.length > 0 ? createGuard({ plugins: [verdictPlugin, ...audit] }) : undefined;
  const promptGuard =
    approvals.length > 0 ? createGuard({ plugins: [verdictPlugin, ...approvals] }) : undefined;
  return {
    runId,
    ...(auditGuard
      ? {
          onConnection: (r: ConnectionRecord) => {
            void auditGuard
              .check(
                call({
                  host: r.host,
                  port: r.port,
                  scheme: r.scheme,
                  method: r.method,
                  via: r.via,
                  verdict: r.action,
                  rule: r.rule,
                  ...(r.source !== undefined ? { source: r.source } : {}),
                  ...(r.prompted ? { prompted: true } : {}),
                }),
                ctx,
              )
              .catch(() => {});
          },
        }
      : {}),
    ...(promptGuard
      ? {
          onPrompt: async (q: PromptRequest) => {
            const d = await promptGuard.check(
              call({
                host: q.host,
                port: q.port ?? 0,
                scheme: q.scheme ?? 'tcp',
                method: q.method,
                via: 'proxy',
                verdict: 'prompt',
                rule: q.rule,
                ...(q.source !== undefined ? { source: q.source } : {}),
              }),
              ctx,
            );
            return d.action === 'allow';
          },
        }
      : {}),
    close() {
      for (const p of plugins) (p as { close?: () => void }).close?.();
      extra.close();
    },
  };
}
