import { resolve } from 'node:path';
import type { ClaudePermissions, ClaudeRule } from './claudePermissions.js';

export interface ConvertedRule {
  pattern: string;
  access: 'deny' | 'prompt' | 'read' | 'write';
  ops?: Array<'read' | 'write'>;
  vector?: 'shell' | 'file';
  description: string;
}

export interface NotConverted {
  source: string;
  rule: string;
  why: string;
}

export interface Conversion {
  /** The assistant's working directories and what it does there without asking (the policy's first rules). */
  base: ConvertedRule[];
  /** What no rule names gets: one word, or per operation. */
  default:
    | 'allow'
    | 'deny'
    | 'prompt'
    | { read: 'allow' | 'deny' | 'prompt'; write: 'allow' | 'deny' | 'prompt' };
  /** Comment lines on the mode the base and the default come from. */
  modeNote: string;
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
        : rule.tool === 'WebFetch' || rule.tool === 'WebSearch'
          ? 'a rule on URLs or domains, not file paths (toolgate has no network rules); Claude Code keeps applying it (the hook defers to it)'
          : rule.tool.startsWith('mcp__')
            ? "a rule on an MCP server or tool, not on paths; Claude Code keeps applying it (the hook defers to it; the paths in the tool's arguments are still judged)"
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
  // Every rule applies to its own operation only (`ops`). For a grant that is what keeps its meaning: in tiered
  // mode an unscoped `src/** read` (from Read(src/**)) is also a read-only tier for writes, which would out-rank
  // the `src/** write` of Edit(src/**) and deny the one edit the settings allowed (issue 25).
  if (rule.list === 'deny') return { pattern, access: 'deny', ops: [op], description };
  if (rule.list === 'ask') return { pattern, access: 'prompt', ops: [op], description };
  return { pattern, access: op, ops: [op], description };
}

type ClaudeMode = 'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions';
const MODES: readonly ClaudeMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];

/**
 * What Claude Code does without asking in its working directories (the project and `additionalDirectories`)
 * and elsewhere, per `defaultMode` (https://code.claude.com/docs/en/permissions, "Permission modes"): reads
 * in them are free in every mode; file edits ask (`default`, `dontAsk`: refused), are accepted
 * (`acceptEdits`, `bypassPermissions`) or never happen (`plan`). What shell commands write is left to
 * Claude Code's Bash rules (toolgate cannot tell them apart by command), except in plan mode.
 */
function modeRules(
  mode: ClaudeMode,
  dirs: ReadonlyArray<{ pattern: string; what: string }>,
): ConvertedRule[] {
  const out: ConvertedRule[] = [];
  for (const { pattern, what } of dirs) {
    if (mode === 'acceptEdits' || mode === 'bypassPermissions') {
      out.push({
        pattern,
        access: 'write',
        description: `${what}: read and edited without asking (${mode})`,
      });
      continue;
    }
    out.push({ pattern, access: 'read', ops: ['read'], description: `${what}: read without asking` });
    if (mode !== 'plan')
      out.push({
        pattern,
        access: 'write',
        vector: 'shell',
        description: `${what}: what shell commands write here is left to Claude Code's Bash rules (the hook defers to them)`,
      });
  }
  return out;
}

const MODE_DEFAULT: Record<ClaudeMode, Conversion['default']> = {
  default: 'prompt',
  acceptEdits: 'prompt',
  plan: { read: 'prompt', write: 'deny' },
  dontAsk: 'deny',
  bypassPermissions: 'allow',
};

const MODE_NOTE: Record<ClaudeMode, string> = {
  default:
    'what no rule names needs approval (file edits too, unless an Edit rule allows them), as in Claude Code',
  acceptEdits:
    'file edits in the working directories are accepted; anything else no rule names needs approval',
  plan: 'nothing is written (plan mode); reads no rule names need approval',
  dontAsk: 'what no rule allows is refused, as Claude Code refuses it without asking',
  bypassPermissions: 'what no deny or ask rule names is allowed, as Claude Code asks nothing in this mode',
};

/** Claude Code permissions as toolgate rules, and every entry that has no toolgate equivalent, with why. */
export function convertClaude(all: readonly ClaudePermissions[], projectDir: string): Conversion {
  const out: Conversion = { base: [], default: 'prompt', modeNote: '', rules: [], notConverted: [] };
  // Later files take precedence (user < project < local, the order they are read in), as in Claude Code.
  let mode: ClaudeMode = 'default';
  let modeSource = 'no defaultMode set';
  const dirs: Array<{ pattern: string; what: string }> = [
    { pattern: '<workspace>/**', what: 'the project (<workspace> is the root Claude Code reports)' },
  ];
  for (const perms of all) {
    if (perms.defaultMode) {
      const m = perms.defaultMode.mode;
      if (typeof m === 'string' && (MODES as readonly string[]).includes(m)) {
        mode = m as ClaudeMode;
        modeSource = perms.defaultMode.source;
      } else
        out.notConverted.push({
          source: perms.defaultMode.source,
          rule: `defaultMode ${JSON.stringify(m)}`,
          why: `not one of ${MODES.join(', ')}`,
        });
    }
    for (const rule of perms.rules) {
      const converted = convertOne(rule);
      if ('why' in converted) out.notConverted.push(converted);
      else out.rules.push(converted);
    }
    for (const { dir, source } of perms.additionalDirectories) {
      // Relative directories are relative to the project (where Claude Code runs), resolved here: a glob
      // with `..` in it would not say what it covers.
      const base = dir.startsWith('~') ? dir.replace(/\/+$/, '') : resolve(projectDir, dir);
      dirs.push({ pattern: `${base}/**`, what: `additionalDirectories ${dir} from ${source}` });
    }
    for (const { source, value } of perms.malformed)
      out.notConverted.push({
        source,
        rule: JSON.stringify(value),
        why: 'not a rule string `Tool` or `Tool(specifier)`',
      });
  }
  out.base = modeRules(mode, dirs);
  out.default = MODE_DEFAULT[mode];
  out.modeNote = `defaultMode ${mode} (${modeSource}): ${MODE_NOTE[mode]}`;
  return out;
}
