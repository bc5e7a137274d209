import { readFileSync } from 'node:fs';

let version: string | undefined;

/** This package's version (part of the policy cache key: a new toolgate never reads an old compile). */
export function toolgateVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return version;
}
