import { readFileSync } from 'node:fs';
import { ToolgateError } from '@toolgate/core';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';

export type ConfigFormat = 'yaml' | 'json' | 'toml';

export function formatOf(file: string, fallback: ConfigFormat): ConfigFormat {
  if (/\.toml$/i.test(file)) return 'toml';
  if (/\.json$/i.test(file)) return 'json';
  if (/\.ya?ml$/i.test(file)) return 'yaml';
  return fallback;
}

export function readConfig(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ToolgateError(
      'TOOLGATE_ERR_IO',
      `${file}: cannot read the policy file: ${(error as Error).message}`,
      {
        file,
      },
    );
  }
}

/** Parses YAML, JSON or TOML text; a syntax error names the file and where. */
export function parseConfig(text: string, file: string, format: ConfigFormat): unknown {
  try {
    if (format === 'toml') return parseToml(text);
    if (format === 'json') return JSON.parse(text);
    return parseYaml(text, { prettyErrors: true });
  } catch (error) {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_CONFIG',
      `${file}: not valid ${format.toUpperCase()}: ${(error as Error).message.split('\n')[0]}`,
      { file },
    );
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
