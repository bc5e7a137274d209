import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../exitCodes.js';

/** A settings file as an object; a missing file is `{}`. Anything that is not a JSON object is refused, not overwritten. */
export function readSettings(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${file} is not plain JSON (${(error as Error).message}); toolgate will not rewrite it — add the hook by hand (see docs/integrations.md)`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`${file} must hold a JSON object, got ${JSON.stringify(value).slice(0, 40)}`);
  return value as Record<string, unknown>;
}

export function renderSettings(settings: Record<string, unknown>): string {
  return `${JSON.stringify(settings, null, 2)}\n`;
}

/** Written whole to a temp file and renamed over: the assistant never reads half a settings file. */
export function writeSettings(file: string, settings: Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true });
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const tmp = `${file}.toolgate-${process.pid}.tmp`;
  writeFileSync(tmp, renderSettings(settings), { mode });
  renameSync(tmp, file);
}
