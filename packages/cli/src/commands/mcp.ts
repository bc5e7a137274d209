import type { Command } from 'commander';
import { APPROVAL_STRATEGIES } from '../integrations/approvalStrategies.js';
import type { McpCommandOptions } from '../integrations/runMcp.js';
import { type GatewayNumberFlags, gatewayNumbers } from './gatewayNumbers.js';

// Registration only: the gateway, the MCP SDK and the plugins load when the command runs, so other commands
// (and every `toolgate hook` call an assistant makes) do not pay for them at startup.
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description(
      'Guard an MCP server: speak MCP on stdio, judge every tools/call with the policy, relay the rest',
    )
    .option(
      '--dialect <dialect>',
      'policy dialect (toolgate, folderguard, wunderland, wolo, hermes, openfang) (default: inferred from the file: toolgate for toolgate.yaml, .toolgate/policy.yaml, else from its keys)',
    )
    .option(
      '--policy <file>',
      'policy file (default: discovered: toolgate.yaml or .toolgate/policy.yaml here or above, …; wolo: ~/.wolo/config.yaml)',
    )
    .option('--audit <file>', 'append every decision to this audit trail (JSONL)')
    .option('--audit-required', 'fail closed: deny every call while the audit trail cannot be written')
    .option(
      '--no-dialect-audit',
      "no audit trail from the dialect's own settings (wolo audit_denied, Wunderland)",
    )
    .option(
      '--webhook <url...>',
      'notify these receivers of violations (also TOOLGATE_/WUNDERLAND_VIOLATION_WEBHOOKS)',
    )
    .option('-r, --resume <session>', 'use this session id and resume its saved confirmations (wolo)')
    .option(
      '-P, --allow-path <dir...>',
      'wolo: writes allowed here without confirmation (seed 002 cli_paths)',
    )
    .option(
      '--wild',
      'wolo: wild mode, every check bypassed and every decision audited (WOLO_WILD_MODE=true)',
    )
    .option(
      '--approvals <strategy>',
      `who answers prompts the client cannot ask about: ${APPROVAL_STRATEGIES.join(' | ')}`,
      'auto-deny',
    )
    .option(
      '--console [port]',
      'serve the web console beside the gateway (loopback; any free port unless given): prompts wait there for a person, decisions stream live',
    )
    .option(
      '--console-host <address>',
      'listen on this address instead of loopback (warned; needs --console)',
    )
    .option(
      '--redis <url>',
      "ask prompts of the fleet's desks on this Redis (toolgate console, redisDesk) and keep sessions' grants there, shared by every gateway on it",
    )
    .option(
      '--watch-policy',
      'reload the policy file when it changes (between calls; a version that fails to load keeps the last good one, on stderr)',
    )
    .option('--cwd <dir>', 'directory relative paths are resolved against (default: this process’s)')
    .option('--workspace <dir>', 'the workspace root (default: --cwd)')
    .option('--agent <id>', 'agent id (and per-agent overlay in the policy)')
    .option('--url <url>', 'guard a Streamable-HTTP MCP server at this URL instead of spawning one')
    .option(
      '--relative-paths <mode>',
      'deny: path arguments must be absolute (or ~/…); cwd: the server resolves them against --cwd',
      'deny',
    )
    .option(
      '--request-timeout <ms>',
      "how long a relayed request waits for the server's answer (default 120000; progress restarts it)",
    )
    .option(
      '--max-frame-bytes <n>',
      'largest message accepted on a stdio stream (default 33554432, 32 MiB; at least 1024)',
    )
    .option('--restart <n>', 'restart a spawned server that exits, at most this many times (default 0)')
    .argument('[server...]', 'the server command and its arguments, after --')
    .action(async (server: string[], options: McpCommandOptions & GatewayNumberFlags) => {
      // Checked before anything loads or starts: a bad value is exit 2 naming the flag and the value.
      const { requestTimeout, maxFrameBytes, restart, ...rest } = options;
      const gateway = gatewayNumbers({
        ...(requestTimeout !== undefined ? { requestTimeout } : {}),
        ...(maxFrameBytes !== undefined ? { maxFrameBytes } : {}),
        ...(restart !== undefined ? { restart } : {}),
      });
      const { runMcp } = await import('../integrations/runMcp.js');
      process.exitCode = await runMcp(server, { ...rest, gateway });
    });
}
