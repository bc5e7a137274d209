import { dirname } from 'node:path';

/** One Claude Code permission rule, `Tool` or `Tool(specifier)`, and where it came from. */
export interface ClaudeRule {
  list: 'allow' | 'deny' | 'ask';
  tool: string;
  specifier?: string;
  /** `<settings file>#permissions.deny[2]`. */
  source: string;
  /** The settings file's directory (for `/path` rules: the project root when it is `.claude/`). */
  settingsDir: string;
}

export interface ClaudePermissions {
  rules: ClaudeRule[];
  additionalDirectories: Array<{ dir: string; source: string }>;
  /** `permissions.defaultMode` (`default`, `acceptEdits`, `plan`, `dontAsk`, `bypassPermissions`), as written. */
  defaultMode?: { mode: unknown; source: string };
  /** Entries that are not rule strings at all. */
  malformed: Array<{ source: string; value: unknown }>;
}

const RULE = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s;

/** The `permissions` of one Claude Code settings object (https://code.claude.com/docs/en/permissions). */
export function claudePermissions(settings: Record<string, unknown>, file: string): ClaudePermissions {
  const out: ClaudePermissions = { rules: [], additionalDirectories: [], malformed: [] };
  const permissions = settings.permissions;
  if (permissions === null || typeof permissions !== 'object' || Array.isArray(permissions)) return out;
  const p = permissions as Record<string, unknown>;
  for (const list of ['deny', 'ask', 'allow'] as const) {
    const entries = p[list];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, i) => {
      const source = `${file}#permissions.${list}[${i}]`;
      const m = typeof entry === 'string' ? RULE.exec(entry.trim()) : null;
      if (!m) {
        out.malformed.push({ source, value: entry });
        return;
      }
      out.rules.push({
        list,
        tool: m[1]!,
        ...(m[2] !== undefined ? { specifier: m[2] } : {}),
        source,
        settingsDir: dirname(file),
      });
    });
  }
  if (p.defaultMode !== undefined)
    out.defaultMode = { mode: p.defaultMode, source: `${file}#permissions.defaultMode` };
  if (Array.isArray(p.additionalDirectories))
    p.additionalDirectories.forEach((dir, i) => {
      const source = `${file}#permissions.additionalDirectories[${i}]`;
      if (typeof dir === 'string' && dir !== '') out.additionalDirectories.push({ dir, source });
      else out.malformed.push({ source, value: dir });
    });
  return out;
}
