import { existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { loadPolicy } from '@toolgate/folder-rules';
import { UsageError } from '../exitCodes.js';
import { readSettings } from '../install/settingsFile.js';
import { claudePermissions } from './claudePermissions.js';
import { type Conversion, convertClaude } from './convertClaude.js';

export interface ImportOptions {
  /** Settings files to read (default: the user's, the project's and the project's local ones that exist). */
  settings?: string[];
  dir?: string;
  out?: string;
  force?: boolean;
}

function render(conversion: Conversion, files: readonly string[]): string {
  const rule = (r: Conversion['rules'][number]) =>
    `  # ${r.description}\n  - { pattern: ${JSON.stringify(r.pattern)}, access: ${r.access}${r.ops ? `, ops: [${r.ops.join(', ')}]` : ''} }\n`;
  const skipped = conversion.notConverted.map((n) => `#   ${n.rule} (${n.source}): ${n.why}\n`).join('');
  return `# toolgate policy imported from Claude Code permissions by \`toolgate import claude-code\`:
${files.map((f) => `#   ${f}\n`).join('')}#
# How it decides (mode: tiered): the most restrictive matching rule wins, deny > prompt > read > write. Claude
# Code's deny/ask rules keep their operation (ops: [read] for Read, [write] for Edit/Write); its allow rules are
# grants (write implies read). With the hook installed a prompt is Claude Code's own "ask" dialog, and a policy
# allow leaves the call to Claude Code's permission rules, which still apply.
version: 1
mode: tiered
# What no rule names needs approval, as in Claude Code's default mode.
default: prompt
rules:
  # the project Claude Code works in (<workspace> is the project root the assistant reports)
  - { pattern: "<workspace>/**", access: write }
${conversion.rules.map(rule).join('')}${skipped ? `\n# Not converted (${conversion.notConverted.length}):\n${skipped}` : ''}`;
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
  const home = process.env.HOME && isAbsolute(process.env.HOME) ? process.env.HOME : homedir();
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
  const text = render(conversion, files);
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
