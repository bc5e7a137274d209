import type { DescribeContext, ToolDescriptor } from '@toolgate/core';
import { classifyWith, type toolPlans } from './classify.js';
import { hostDescription } from './describeHosts.js';
import { evaluatorFor } from './evaluator.js';
import { gateFinding } from './gates.js';
import { specFromDescriptor } from './schemaSpec.js';
import type { CompiledPolicy } from './types.js';

/** Marks the block so applying the enhancement twice replaces it instead of stacking a second copy. */
export const BLOCK_START = '\n\n<!-- toolgate:folder-rules -->';
export const BLOCK_END = '<!-- /toolgate:folder-rules -->';

function stripBlock(description: string): string {
  const start = description.indexOf(BLOCK_START);
  if (start === -1) return description;
  const end = description.indexOf(BLOCK_END, start);
  return end === -1
    ? description.slice(0, start)
    : description.slice(0, start) + description.slice(end + BLOCK_END.length);
}

function roots(policy: CompiledPolicy, dctx: DescribeContext) {
  const ctx = {
    cwd: dctx.cwd ?? dctx.workspace ?? '/',
    workspace: dctx.workspace ?? '<workspace>',
    home: dctx.home ?? '~',
    env: dctx.env ?? {},
  };
  // Without a context the patterns keep their placeholders: better a literal `<workspace>` than a guess.
  const literal = ctx.workspace === '<workspace>' || ctx.home === '~';
  if (literal) {
    const strip = (p: string) => (p.endsWith('/**') ? p.slice(0, -3) : p);
    const pick = (ok: (a: string) => boolean) => [
      ...new Set(
        policy.rules
          .filter((r) => !r.block && ok(r.access) && r.vector !== 'shell')
          .map((r) => strip(r.pattern)),
      ),
    ];
    const pickShell = () => [
      ...new Set(
        policy.rules
          .filter((r) => !r.block && r.access === 'write' && r.vector !== 'file')
          .map((r) => strip(r.pattern)),
      ),
    ];
    return {
      read: pick((a) => a === 'read' || a === 'write'),
      write: pick((a) => a === 'write'),
      shell: pickShell(),
    };
  }
  const ev = evaluatorFor(policy, ctx);
  return {
    read: [...ev.allowedRoots('read', 'file')],
    write: [...ev.allowedRoots('write', 'file')],
    // A shell tool is judged by the shell vector's rules (Hermes `tools.terminal.*`), never the file tools'.
    shell: [...ev.allowedRoots('write', 'shell')],
  };
}

/** Folder Guard's own Downloads/ exception: shown as the seed's SPECIAL ACCESS line, not as a listed root. */
function isDownloads(root: string, policy: CompiledPolicy): boolean {
  return policy.dialect === 'folderguard' && /(^|\/)Downloads$/.test(root);
}

/** Nothing at all is writable: no write rule, and the default denies writes. */
export function nothingWritable(policy: CompiledPolicy): boolean {
  const d = policy.defaults?.file ?? policy.default;
  return (
    d.write === 'deny' && !policy.rules.some((r) => !r.block && r.access === 'write' && r.vector !== 'shell')
  );
}

/** A tool every call of which the policy's gates deny (Hermes `tools.<tool>.enabled: false`). */
function isDisabled(
  tool: ToolDescriptor,
  policy: CompiledPolicy,
  plans: ReturnType<typeof toolPlans>,
): boolean {
  if (!tool || typeof tool.name !== 'string') return false;
  const fromSchema = specFromDescriptor(tool);
  if (fromSchema) plans.learn(tool.name, fromSchema);
  const c = classifyWith(plans.get(tool.name), { tool: tool.name, args: {} });
  return gateFinding(tool.name, c, policy)?.code === 'TOOL_DISABLED';
}

/**
 * Folder Guard's description enhancement and write-tool hiding. Idempotent: a description that already
 * carries the block gets it replaced, never doubled (the bug the seed's own project hit).
 */
export function describeTools(
  tools: ToolDescriptor[],
  dctx: DescribeContext,
  policy: CompiledPolicy,
  plans: ReturnType<typeof toolPlans>,
): ToolDescriptor[] {
  // Hermes (seed 003): "when a profile declares tools.terminal.enabled: true, the agent gets unrestricted shell
  // access" — a tool the profile does not enable is not the agent's at all, so `tools/list` does not offer it
  // (every call of it would be TOOL_DISABLED). The allowlist stays out of the schemas (next comment).
  const gates = policy.gates;
  const shown =
    !policy.disabled && (gates?.disabledTools || gates?.disabledVectors)
      ? tools.filter((t) => !isDisabled(t, policy, plans))
      : tools;
  // Hermes: "No changes to tool schemas seen by the LLM — the LLM doesn't need to know about the allowlist."
  if (policy.disabled || policy.gates?.describe === false) return shown;
  const allowed = roots(policy, dctx);
  const hide = policy.hideWriteTools && nothingWritable(policy);
  const out: ToolDescriptor[] = [];
  for (const tool of shown) {
    if (!tool || typeof tool.name !== 'string') {
      out.push(tool);
      continue;
    }
    const fromSchema = specFromDescriptor(tool);
    if (fromSchema) plans.learn(tool.name, fromSchema);
    const c = classifyWith(plans.get(tool.name), { tool: tool.name, args: {} });
    if (c.kind === 'unknown' || (c.kind === 'known' && c.spec.op === 'none')) {
      // A URL tool (WebFetch, a fetch server) is told the hosts it may reach (issue 26).
      const hosts = c.kind === 'known' ? hostDescription(c.spec, policy) : undefined;
      out.push(
        hosts
          ? {
              ...tool,
              description: `${stripBlock(tool.description ?? '')}${BLOCK_START}\n${hosts.join('\n')}\n${BLOCK_END}`,
            }
          : tool,
      );
      continue;
    }
    const writes = c.kind === 'shell' || (c.kind === 'known' && c.spec.op !== 'read' && c.spec.op !== 'list');
    if (c.kind === 'known' && c.spec.op === 'opaque') {
      out.push(tool);
      continue;
    }
    if (hide && writes && c.kind !== 'shell') continue;
    const downloads = policy.dialect === 'folderguard';
    const list = (c.kind === 'shell' ? allowed.shell : writes ? allowed.write : allowed.read).filter(
      (r) => !isDownloads(r, policy),
    );
    const lines = ['📁 **DIRECTORY ACCESS RESTRICTIONS:**', ''];
    if (list.length === 0)
      lines.push(
        writes ? '⚠️ **IMPORTANT:** No directory is writable.' : '⚠️ **IMPORTANT:** No directory is readable.',
      );
    else
      lines.push(
        `⚠️ **IMPORTANT:** You can ONLY ${writes ? 'write to' : 'read from'} these directories:`,
        ...list,
      );
    // Seed 000's enhanced description, word for word: the Downloads/ exception has its own line.
    if (downloads)
      lines.push(
        '',
        "✅ **SPECIAL ACCESS:** The 'Downloads/' folder is always accessible.",
        '',
        'Use ONLY these directories (or Downloads/) when calling this tool.',
      );
    else lines.push('', 'Use ONLY these directories when calling this tool.');
    const description = `${stripBlock(tool.description ?? '')}${BLOCK_START}\n${lines.join('\n')}\n${BLOCK_END}`;
    out.push({ ...tool, description });
  }
  return out;
}
