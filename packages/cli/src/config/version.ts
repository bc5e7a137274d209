import { readFileSync } from 'node:fs';

// Set by the hook bundle (scripts/bundle-hook.mjs), where package.json is not beside the module.
declare const __TOOLGATE_VERSION__: string | undefined;

let version: string | undefined;

/** This package's version (part of the policy cache key: a new toolgate never reads an old compile). */
export function toolgateVersion(): string {
  version ??=
    typeof __TOOLGATE_VERSION__ === 'string'
      ? __TOOLGATE_VERSION__
      : (
          JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
            version: string;
          }
        ).version;
  return version;
}
