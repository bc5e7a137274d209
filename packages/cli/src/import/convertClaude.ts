import { resolve } from 'node:path';
import type { ClaudePermissions, ClaudeRule } from './claudePermissions.js';

export interface ConvertedRule {
  pattern: string;
  access: 'deny' | 'prompt' | 'read' | 'write';
  ops?: Array<'read' | 'write'>;
  description: string;
}

export interface NotConverted {
  source: string;
  rule: string;
  why: string;
}

export interface Conversion {
  rules: ConvertedRule[];
  notConverted: NotConverted[];
}

const READ_TOOLS = new Set(['Read', 'NotebookRead']);
const WRITE_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

/**
 * A Claude Code path specifier as a toolgate glob. Claude Code reads Read/Edit specifiers with gitignore
 * semantics (https://code.claude.com/docs/en/permissions, "Read & Edit"): `//path` is absolute, `~/path` is
 * under the home directory, `/path` is relative to the project (the directory holding `.claude/`), and `path`
 * or `./path` relative to where Claude Code runs — the project root, `<workspace>` here. A name without a
 * slash matches at any depth (gitignore), which only deny and ask rules may take that widely: an allow keeps
 * to the project root. A trailing `/` means the directory and everything in it.
 */
function pathPattern(spec: string, rule: ClaudeRule): string {
  let s = spec.trim();
  if (s.endsWith('/')) s = `${s}**`;
  if (s.startsWith('//')) return s.slice(1);
  if (s === '~' || s.startsWith('~/')) return s;
  if (s.startsWith('/')) return `<workspace>${s}`;
  if (s.startsWith('./')) return `<workspace>/${s.slice(2)}`;
  if (!s.includes('/') && rule.list !== 'allow') return `<workspace>/**/${s}`;
  return `<workspace>/${s}`;
}

function convertOne(rule: ClaudeRule): ConvertedRule | NotConverted {
  const text = rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`;
  const reads = READ_TOOLS.has(rule.tool);
  const writes = WRITE_TOOLS.has(rule.tool);
  if (!reads && !writes) {
    const why =
      rule.tool === 'Bash'
        ? 'toolgate judges the paths a command touches, not the command text; Claude Code keeps applying this rule (the hook defers to it)'
        : rule.tool.startsWith('mcp__') || rule.tool === 'WebFetch' || rule.tool === 'WebSearch'
          ? 'not about file paths; Claude Code keeps applying it'
          : `no path rule for the ${rule.tool} tool; Claude Code keeps applying it`;
    return { source: rule.source, rule: text, why };
  }
  if (rule.specifier !== undefined && /^\s*$/.test(rule.specifier))
    return { source: rule.source, rule: text, why: 'empty specifier' };
  const pattern = rule.specifier === undefined ? '/**' : pathPattern(rule.specifier, rule);
  const op: 'read' | 'write' = reads ? 'read' : 'write';
  const note =
    rule.tool === 'Write' && rule.specifier !== undefined
      ? ' (Claude Code ignores path-scoped Write rules; converted as Edit)'
      : '';
  const description = `${rule.list} ${text} from ${rule.source}${note}`;
  // deny/ask of one kind of tool apply to that operation only (`ops`); a grant is a tier: `write` implies read.
  if (rule.list === 'deny') return { pattern, access: 'deny', ops: [op], description };
  if (rule.list === 'ask') return { pattern, access: 'prompt', ops: [op], description };
  return { pattern, access: op === 'read' ? 'read' : 'write', description };
}

/** Claude Code permissions as toolgate rules, and every entry that has no toolgate equivalent, with why. */
export function convertClaude(all: readonly ClaudePermissions[], projectDir: string): Conversion {
  const out: Conversion = { rules: [], notConverted: [] };
  for (const perms of all) {
    for (const rule of perms.rules) {
      const converted = convertOne(rule);
      if ('why' in converted) out.notConverted.push(converted);
      else out.rules.push(converted);
    }
    for (const { dir, source } of perms.additionalDirectories) {
      // Relative directories are relative to the project (where Claude Code runs), resolved here: a glob
      // with `..` in it would not say what it covers.
      const base = dir.startsWith('~') ? dir.replace(/\/+$/, '') : resolve(projectDir, dir);
      out.rules.push({
        pattern: `${base}/**`,
        access: 'write',
        description: `additionalDirectories ${dir} from ${source}`,
      });
    }
    for (const { source, value } of perms.malformed)
      out.notConverted.push({
        source,
        rule: JSON.stringify(value),
        why: 'not a rule string `Tool` or `Tool(specifier)`',
      });
  }
  return out;
}
