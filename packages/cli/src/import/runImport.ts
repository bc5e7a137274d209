import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { loadPolicy } from '@toolgate/folder-rules';
import { UsageError } from '../exitCodes.js';
import { readSettings } from '../install/settingsFile.js';
import { claudePermissions } from './claudePermissions.js';
import { type Conversion, convertClaude } from './convertClaude.js';
import { convertGemini } from './convertGemini.js';
import { geminiPolicies } from './geminiPolicies.js';

export interface ImportOptions {
  /** Settings files to read (default: the user's, the project's and the project's local ones that exist). */
  settings?: string[];
  dir?: string;
  out?: string;
  force?: boolean;
}

/** Where a conversion came from, for the policy's opening comment. */
interface Origin {
  /** `Claude Code permissions` */
  what: string;
  assistant: 'claude-code' | 'gemini-cli';
  /** How the rules were converted: comment lines. */
  how: string;
}

function render(conversion: Conversion, files: readonly string[], origin: Origin): string {
  const rule = (r: Conversion['rules'][number]) =>
    `  # ${r.description}\n  - { pattern: ${JSON.stringify(r.pattern)}, access: ${r.access}${r.ops ? `, ops: [${r.ops.join(', ')}]` : ''}${r.vector ? `, vector: ${r.vector}` : ''} }\n`;
  const fallback =
    typeof conversion.default === 'string'
      ? conversion.default
      : `{ read: ${conversion.default.read}, write: ${conversion.default.write} }`;
  const skipped = conversion.notConverted.map((n) => `#   ${n.rule} (${n.source}): ${n.why}\n`).join('');
  return `# toolgate policy imported from ${origin.what} by \`toolgate import ${origin.assistant}\`:
${files.map((f) => `#   ${f}\n`).join('')}#
${origin.how}version: 1
mode: tiered
# ${conversion.modeNote}
default: ${fallback}
rules:
${conversion.base.map(rule).join('')}${conversion.rules.map(rule).join('')}${skipped ? `\n# Not converted (${conversion.notConverted.length}):\n${skipped}` : ''}`;
}

const CLAUDE: Origin = {
  what: 'Claude Code permissions',
  assistant: 'claude-code',
  how: `# How it decides (mode: tiered): the most restrictive matching rule wins, deny > prompt > read > write, as
# Claude Code's deny > ask > allow. Every rule keeps its operation (ops: [read] for Read, [write] for
# Edit/Write), allow rules too: a read grant never makes a path read-only, so Edit(src/**) still allows edits
# under a broader Read rule. defaultMode decides what the working directories get and the default. With the
# hook installed a prompt is Claude Code's own "ask" dialog, and a policy allow leaves the call to Claude
# Code's permission rules, which still apply (Bash, WebFetch and MCP tool rules stay Claude Code's).
`,
};

const GEMINI: Origin = {
  what: 'Gemini CLI policy rules',
  assistant: 'gemini-cli',
  how: `# How it decides (mode: tiered): the most restrictive matching rule wins, deny > prompt > read > write. Gemini
# CLI's priorities are not kept: where one of its allow rules outranked a deny, the deny wins here. Every rule
# keeps its operation (ops: [read] for read_file, listing and the search tools, [write] for write_file and
# replace), allow rules too, so a read grant never out-ranks a write grant beneath it. A
# rule's argsPattern becomes a path glob only when it names one path argument literally. With the hook
# installed a prompt is settled by toolgate's approver (Gemini CLI hooks cannot ask), and a policy allow leaves
# the call to Gemini CLI's own policy engine, which still applies.
`,
};

/** Writes (or prints) the policy after checking it loads, and reports what was and was not converted. */
function emit(
  conversion: Conversion,
  files: readonly string[],
  origin: Origin,
  options: ImportOptions,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): number {
  const text = render(conversion, files, origin);
  // What is written must load: a conversion bug fails here, not in the user's next hook call.
  loadPolicy({ dialect: 'toolgate', source: text, file: options.out ?? '<imported policy>' });
  if (options.out !== undefined) {
    const target = resolve(options.out);
    if (existsSync(target) && !options.force)
      throw new UsageError(`${target} already exists; write over it with --force`);
    writeFileSync(target, text);
    err.write(`wrote ${target}\n`);
  } else out.write(text);
  err.write(
    `converted ${conversion.rules.length} rule(s) from ${files.length} file(s); not converted: ${conversion.notConverted.length}\n`,
  );
  for (const n of conversion.notConverted) err.write(`  not converted: ${n.rule} (${n.source}): ${n.why}\n`);
  return 0;
}

function homeDir(): string {
  return process.env.HOME && isAbsolute(process.env.HOME) ? process.env.HOME : homedir();
}

/**
 * `toolgate import claude-code`: converts Claude Code's `permissions.allow/deny/ask` path rules (`Read(…)`,
 * `Edit(…)`, `Write(…)`) and `additionalDirectories` into a toolgate policy, and reports every rule it could
 * not convert (Bash command rules, WebFetch, MCP tools…) with the reason — in the file and on stderr.
 */
export function runImport(
  options: ImportOptions,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): number {
  const project = resolve(options.dir ?? process.cwd());
  const home = homeDir();
  const files =
    options.settings?.map((f) => resolve(f)) ??
    [
      join(home, '.claude', 'settings.json'),
      join(project, '.claude', 'settings.json'),
      join(project, '.claude', 'settings.local.json'),
    ].filter((f) => existsSync(f));
  if (files.length === 0)
    throw new UsageError(
      `no Claude Code settings found (~/.claude/settings.json, ${join(project, '.claude')}/settings*.json); name one with --settings`,
    );
  for (const f of files) if (!existsSync(f)) throw new UsageError(`--settings ${f}: no such file`);
  const conversion = convertClaude(
    files.map((f) => claudePermissions(readSettings(f), f)),
    project,
  );
  return emit(conversion, files, CLAUDE, options, out, err);
}

/** The `.toml` files of a policy directory, in name order (Gemini CLI loads every one). */
function tomlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.toml'))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * `toolgate import gemini-cli [FILE…]`: converts the `[[rule]]`s of Gemini CLI policy files (default: the
 * user's `~/.gemini/policies/*.toml` and the project's `.gemini/policies/*.toml`) whose conditions name file
 * paths, and reports every rule it could not convert (shell command rules, other tools, regexes that are not
 * one path) with the file and rule index — in the file and on stderr.
 */
export function runGeminiImport(
  options: ImportOptions,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): number {
  const project = resolve(options.dir ?? process.cwd());
  const files = options.settings?.map((f) => resolve(f)) ?? [
    ...tomlFiles(join(homeDir(), '.gemini', 'policies')),
    ...tomlFiles(join(project, '.gemini', 'policies')),
  ];
  if (files.length === 0)
    throw new UsageError(
      `no Gemini CLI policy files found (~/.gemini/policies/*.toml, ${join(project, '.gemini', 'policies')}/*.toml); name them: toolgate import gemini-cli FILE…`,
    );
  for (const f of files) if (!existsSync(f)) throw new UsageError(`${f}: no such file`);
  return emit(convertGemini(geminiPolicies(files)), files, GEMINI, options, out, err);
}
