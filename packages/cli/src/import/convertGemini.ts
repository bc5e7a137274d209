import type { Conversion, ConvertedRule, NotConverted } from './convertClaude.js';
import type { GeminiPolicies, GeminiRule } from './geminiPolicies.js';

type Op = 'read' | 'write' | 'list';

/**
 * Gemini CLI's built-in file tools and what they do to the paths they name (Tools reference,
 * https://geminicli.com/docs/reference/tools/): the path argument spellings are those its releases used.
 */
const FILE_TOOLS: Record<string, { op: Op; keys: readonly string[] }> = {
  read_file: { op: 'read', keys: ['file_path', 'absolute_path', 'path'] },
  read_many_files: { op: 'read', keys: [] },
  search_file_content: { op: 'read', keys: ['dir_path', 'path'] },
  grep_search: { op: 'read', keys: ['dir_path', 'path'] },
  list_directory: { op: 'list', keys: ['dir_path', 'path'] },
  glob: { op: 'list', keys: ['dir_path', 'path'] },
  write_file: { op: 'write', keys: ['file_path', 'path'] },
  replace: { op: 'write', keys: ['file_path', 'path'] },
};

const SHELL_TOOL = 'run_shell_command';
/** Conditions toolgate has no equivalent of: a rule narrowed by one is not converted (an allow would widen). */
const NARROWING = ['subagent', 'mcpName', 'toolAnnotations', 'interactive'] as const;
const KNOWN = new Set([
  'toolName',
  'argsPattern',
  'commandPrefix',
  'commandRegex',
  'decision',
  'priority',
  'modes',
  'denyMessage',
  'allowRedirection',
  ...NARROWING,
]);

/**
 * The path an `argsPattern` names, when the regular expression says nothing else: `"<path key>":"<literal>`
 * optionally ending with `"` (exactly that path), `.*` or nothing (any path that starts so — the regex is
 * unanchored). Literal means plain path characters, `\`-escaped punctuation and `.` (one character, `?`).
 * Anything else (classes, groups, alternation, anchors, quantifiers) is not a path glob with certainty.
 */
function argsPath(pattern: string, keys: readonly string[]): { glob: string } | { why: string } {
  const m = /^"([a-z_]+)":"(.*?)(\.\*|")?$/s.exec(pattern);
  if (!m) return { why: 'argsPattern is not of the form "<path argument>":"<path>…' };
  const [, key, body, end] = m as unknown as [string, string, string, string | undefined];
  if (!keys.includes(key))
    return { why: `argsPattern tests "${key}", not a path argument of the tool (${keys.join(', ')})` };
  let glob = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const next = body[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next))
        return { why: `argsPattern has a regex escape \\${next ?? ''} with no path equivalent` };
      if (/[*?[\]{}()!+@]/.test(next)) return { why: `the path has a glob character ${next}` };
      glob += next;
      i++;
    } else if (c === '.') glob += '?';
    else if (/[\w/~\-%=,: ]/.test(c)) glob += c;
    else return { why: `argsPattern has the regex syntax ${JSON.stringify(c)}: not a path with certainty` };
  }
  if (!glob.startsWith('/') && !glob.startsWith('~/'))
    return { why: 'the path in argsPattern is not absolute' };
  if (end === '"') return { glob };
  // Any path that starts with the text: `/x/` is the directory's subtree; `/x/ab` also covers `/x/abc/…`.
  return { glob: glob.endsWith('/') ? `${glob}**` : `${glob}*/**` };
}

function names(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value;
  return undefined;
}

function convertOne(rule: GeminiRule): { rules: ConvertedRule[]; notConverted: NotConverted[] } {
  const f = rule.fields;
  const text = JSON.stringify(f);
  const skip = (why: string) => ({ rules: [], notConverted: [{ source: rule.source, rule: text, why }] });
  const decision = f.decision;
  if (decision !== 'allow' && decision !== 'deny' && decision !== 'ask_user')
    return skip(`decision must be "allow", "deny" or "ask_user", got ${JSON.stringify(decision)}`);
  const unknown = Object.keys(f).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) return skip(`unknown field(s) ${unknown.join(', ')}`);
  const narrowing = NARROWING.filter((k) => f[k] !== undefined);
  if (narrowing.length > 0)
    return skip(`narrowed by ${narrowing.join(', ')}, a condition toolgate has no equivalent of`);
  if (f.modes !== undefined) {
    const modes = names(f.modes);
    if (!modes) return skip('modes must be an array of mode names');
    if (!modes.includes('default'))
      return skip(`active only in mode(s) ${modes.join(', ')}; toolgate has no approval modes`);
  }
  if (f.commandPrefix !== undefined || f.commandRegex !== undefined)
    return skip(
      'a shell command rule: toolgate judges the paths a command touches, not its text (its policy has no command rules); Gemini CLI keeps applying it',
    );
  const tools = names(f.toolName);
  if (!tools) return skip('toolName must be a name or an array of names');
  const pattern = f.argsPattern;
  if (pattern !== undefined && typeof pattern !== 'string') return skip('argsPattern must be a string');
  const out: { rules: ConvertedRule[]; notConverted: NotConverted[] } = { rules: [], notConverted: [] };
  const expanded = tools.includes('*') ? [...Object.keys(FILE_TOOLS), SHELL_TOOL] : tools;
  if (tools.includes('*') && pattern !== undefined)
    return skip('toolName "*" with an argsPattern: the arguments differ from tool to tool');
  // The glob depends on the pattern only: one rule per operation, naming the tools it came from.
  let glob = '/**';
  const byOp = new Map<'read' | 'write', string[]>();
  for (const tool of expanded) {
    const spec = FILE_TOOLS[tool];
    if (!spec) {
      out.notConverted.push({
        source: rule.source,
        rule: `${tool} in ${text}`,
        why:
          tool === SHELL_TOOL
            ? 'a rule on the shell tool itself, not on paths; Gemini CLI keeps applying it'
            : 'not a file tool with path arguments; Gemini CLI keeps applying it',
      });
      continue;
    }
    if (pattern !== undefined) {
      const path = argsPath(pattern, spec.keys);
      if ('why' in path) {
        out.notConverted.push({ source: rule.source, rule: `${tool} in ${text}`, why: path.why });
        continue;
      }
      glob = path.glob;
    }
    // toolgate's `ops` name read or write: a deny or ask of listing alone has no rule of its own.
    if (spec.op === 'list' && decision !== 'allow') {
      out.notConverted.push({
        source: rule.source,
        rule: `${tool} in ${text}`,
        why: 'a rule on listing only: a toolgate rule restricts reads or writes (ops), not listing alone',
      });
      continue;
    }
    // Listing is judged as a read of the directory: one rule for the read and list tools alike.
    const op = spec.op === 'write' ? 'write' : 'read';
    byOp.set(op, [...(byOp.get(op) ?? []), tool]);
  }
  for (const [op, opTools] of byOp) {
    const description = `${decision} ${opTools.join(', ')}${pattern !== undefined ? ` ${pattern}` : ''} from ${rule.source}`;
    // Every rule keeps its operation (`ops`; `read` covers listing). A grant too: an unscoped read tier would
    // also be a read-only tier for writes and out-rank a write_file allow beneath it (issue 25).
    const ops = [op];
    if (decision === 'deny') out.rules.push({ pattern: glob, access: 'deny', ops, description });
    else if (decision === 'ask_user') out.rules.push({ pattern: glob, access: 'prompt', ops, description });
    else out.rules.push({ pattern: glob, access: op, ops, description });
  }
  return out;
}

/** Gemini CLI policy rules as toolgate rules, and every rule (or part of one) with no equivalent, with why. */
export function convertGemini(policies: GeminiPolicies): Conversion {
  const out: Conversion = {
    base: [
      {
        pattern: '<workspace>/**',
        access: 'write',
        description:
          'the project the assistant works in (<workspace> is the project root the assistant reports)',
      },
    ],
    default: 'prompt',
    modeNote: "what no rule names needs approval, as in the assistant's default mode",
    rules: [],
    notConverted: [],
  };
  for (const rule of policies.rules) {
    const one = convertOne(rule);
    out.rules.push(...one.rules);
    out.notConverted.push(...one.notConverted);
  }
  for (const { source, value } of policies.other)
    out.notConverted.push({
      source,
      rule: JSON.stringify(value),
      why: 'not a [[rule]] table (toolgate imports policy rules only)',
    });
  return out;
}
