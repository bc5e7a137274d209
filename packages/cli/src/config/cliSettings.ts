import { readFileSync } from 'node:fs';
import { describeValue, ToolgateError } from '@toolgate/core';

/** One third-party plugin from a policy's `plugins:` section. */
export interface PluginSpec {
  /** A package name (resolved from the policy file's directory) or a path relative to it. */
  package: string;
  /** The factory's export name; default: the module's default export, else its only exported function. */
  export?: string;
  /** Passed to the factory as its one argument. */
  options?: unknown;
  /** `plugins[i]`, for messages. */
  field: string;
}

/** What the CLI reads from a native policy besides the policy itself. */
export interface CliSettings {
  plugins: PluginSpec[];
  /** `hook.approveAllowed`: answer policy allows with the assistant's "allow". */
  approveAllowed: boolean;
}

export interface SplitPolicy extends CliSettings {
  /** The policy text without the CLI's sections (undefined: unchanged, load the file itself). */
  source?: string;
}

const CLI_KEYS = ['plugins', 'hook'] as const;

function invalid(file: string, field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_CONFIG',
    `${file}: field ${field}: ${expected}, got ${describeValue(value)}`,
    { file, field },
  );
}

function pluginsOf(value: unknown, file: string): PluginSpec[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(file, 'plugins', value, 'expected a list of packages');
  return value.map((entry, i): PluginSpec => {
    const field = `plugins[${i}]`;
    if (typeof entry === 'string' && entry.trim() !== '') return { package: entry, field };
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw invalid(file, field, entry, 'expected a package name or {package, export?, options?}');
    for (const key of Object.keys(entry))
      if (!['package', 'export', 'options'].includes(key))
        throw invalid(file, `${field}.${key}`, (entry as Record<string, unknown>)[key], 'unknown field');
    const { package: name, export: exportName, options } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '')
      throw invalid(file, `${field}.package`, name, 'expected a package name');
    if (exportName !== undefined && (typeof exportName !== 'string' || exportName === ''))
      throw invalid(file, `${field}.export`, exportName, 'expected an export name');
    return {
      package: name,
      field,
      ...(exportName !== undefined ? { export: exportName as string } : {}),
      ...(options !== undefined ? { options } : {}),
    };
  });
}

function hookOf(value: unknown, file: string): boolean {
  if (value === undefined) return false;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid(file, 'hook', value, 'expected {approveAllowed}');
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'approveAllowed') throw invalid(file, `hook.${key}`, v, 'unknown field');
    if (typeof v !== 'boolean') throw invalid(file, 'hook.approveAllowed', v, 'expected true or false');
  }
  return (value as { approveAllowed?: boolean }).approveAllowed === true;
}

/**
 * Splits a native policy file into the policy (for folder-rules' loader) and the sections only the CLI reads:
 * `plugins:` (third-party plugins by package name, with options) and `hook:` (`approveAllowed`). One file
 * configures the CLI, the hook and the MCP gateway alike. A file without those sections is left untouched.
 */
export async function splitCliSettings(file: string, given?: string): Promise<SplitPolicy> {
  const none: SplitPolicy = { plugins: [], approveAllowed: false };
  let text: string;
  try {
    text = given ?? readFileSync(file, 'utf8');
  } catch {
    return none; // the loader reports the unreadable file (TOOLGATE_ERR_IO, with its name)
  }
  // Cheap test first: most policies have neither section, and parsing is the loader's job.
  if (!/^\s*"?(plugins|hook)"?\s*[:=]/m.test(text) && !/^\[(plugins|hook)\b/m.test(text)) return none;
  if (/\.json$/i.test(file)) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return none; // the loader reports the syntax error with the file name
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return none;
    const record = { ...(data as Record<string, unknown>) };
    const settings = { plugins: pluginsOf(record.plugins, file), approveAllowed: hookOf(record.hook, file) };
    for (const key of CLI_KEYS) delete record[key];
    return { ...settings, source: JSON.stringify(record) };
  }
  if (/\.toml$/i.test(file)) {
    const { parse, stringify } = await import('smol-toml');
    let data: Record<string, unknown>;
    try {
      data = parse(text) as Record<string, unknown>;
    } catch {
      return none;
    }
    const settings = { plugins: pluginsOf(data.plugins, file), approveAllowed: hookOf(data.hook, file) };
    for (const key of CLI_KEYS) delete data[key];
    return { ...settings, source: stringify(data) };
  }
  const { parseDocument } = await import('yaml');
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return none;
  const data = doc.toJS() as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return none;
  const record = data as Record<string, unknown>;
  const settings = { plugins: pluginsOf(record.plugins, file), approveAllowed: hookOf(record.hook, file) };
  // Deleting from the document keeps the rest of the file (comments, anchors, order) as the user wrote it.
  for (const key of CLI_KEYS) doc.delete(key);
  return { ...settings, source: String(doc) };
}
