import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { UsageError } from '../exitCodes.js';

/**
 * One `[[rule]]` of a Gemini CLI policy file, as written, and where it is. The format is Gemini CLI's policy
 * engine (https://geminicli.com/docs/reference/policy-engine/, "TOML rule schema";
 * https://github.com/google-gemini/gemini-cli/blob/main/docs/reference/policy-engine.md): `toolName` (a name
 * or an array, `*` and `mcp_*` wildcards), `argsPattern` (a regular expression tested against the call's
 * arguments as stable JSON), `commandPrefix` / `commandRegex` (shorthands for `run_shell_command`),
 * `decision` (`allow`, `deny`, `ask_user`), `priority` (0–999, highest wins), and the conditions `modes`,
 * `interactive`, `subagent`, `mcpName`, `toolAnnotations`.
 */
export interface GeminiRule {
  /** `<file>#rule[2]` (0-based, in file order). */
  source: string;
  fields: Record<string, unknown>;
}

export interface GeminiPolicies {
  rules: GeminiRule[];
  /** Top-level entries that are not `[[rule]]` tables (`[[safety_checker]]`, a stray key…). */
  other: Array<{ source: string; value: unknown }>;
}

/** The rules of Gemini CLI policy files; malformed TOML fails naming the file, line and column. */
export function geminiPolicies(files: readonly string[]): GeminiPolicies {
  const out: GeminiPolicies = { rules: [], other: [] };
  for (const file of files) {
    let doc: Record<string, unknown>;
    try {
      doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof TomlError)
        throw new UsageError(
          `${file}:${error.line}:${error.column}: malformed TOML: ${error.message.split('\n')[0]}`,
        );
      throw new UsageError(`${file}: ${(error as Error).message}`);
    }
    for (const [key, value] of Object.entries(doc)) {
      if (key !== 'rule') {
        out.other.push({ source: `${file}#${key}`, value });
        continue;
      }
      if (!Array.isArray(value)) {
        out.other.push({ source: `${file}#rule`, value });
        continue;
      }
      value.forEach((fields, i) => {
        const source = `${file}#rule[${i}]`;
        if (fields === null || typeof fields !== 'object' || Array.isArray(fields))
          out.other.push({ source, value: fields });
        else out.rules.push({ source, fields: fields as Record<string, unknown> });
      });
    }
  }
  return out;
}
