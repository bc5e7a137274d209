import { join } from 'node:path';
import type { HookHostName } from '../integrations/hookHostNames.js';

export type Scope = 'project' | 'local' | 'user';

/**
 * Where each assistant keeps its hooks, and the shape of one hook entry.
 * Claude Code settings (https://code.claude.com/docs/en/settings): `~/.claude/settings.json` (user),
 * `.claude/settings.json` (project, shared), `.claude/settings.local.json` (project, not committed); hooks
 * (https://code.claude.com/docs/en/hooks): `hooks.PreToolUse[] = {matcher, hooks: [{type: "command", command}]}`.
 * Gemini CLI (https://geminicli.com/docs/hooks/reference, "Configuration schema"): `hooks.BeforeTool[] =
 * {matcher, hooks: [{type: "command", command, name}]}` in `~/.gemini/settings.json` or `.gemini/settings.json`.
 */
export interface HostSettings {
  event: 'PreToolUse' | 'BeforeTool';
  /** Every tool: the policy decides what a call touches, not the matcher. */
  matcher: string;
  file(scope: Scope, projectDir: string, home: string): string;
  entry(command: string): Record<string, unknown>;
}

export const HOST_SETTINGS: Record<HookHostName, HostSettings> = {
  'claude-code': {
    event: 'PreToolUse',
    matcher: '*',
    file: (scope, projectDir, home) =>
      scope === 'user'
        ? join(home, '.claude', 'settings.json')
        : join(projectDir, '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json'),
    entry: (command) => ({ type: 'command', command }),
  },
  'gemini-cli': {
    event: 'BeforeTool',
    matcher: '.*',
    file: (scope, projectDir, home) =>
      scope === 'user'
        ? join(home, '.gemini', 'settings.json')
        : join(projectDir, '.gemini', 'settings.json'),
    entry: (command) => ({ type: 'command', command, name: 'toolgate' }),
  },
};
