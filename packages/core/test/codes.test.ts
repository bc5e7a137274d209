import { readFileSync } from 'node:fs';
import { errorCodes, isKnownCode, verdictCodes } from '@toolgate/core';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Set([...doc.matchAll(/^### ([A-Z_]+)\s*$/gm)].map((m) => m[1]));

describe('the error-code registry', () => {
  it('documents every code in docs/errors.md', () => {
    const missing = [...Object.keys(verdictCodes), ...Object.keys(errorCodes)].filter(
      (c) => !documented.has(c),
    );
    expect(missing).toEqual([]);
  });

  it('documents no code that does not exist', () => {
    const stale = [...documented].filter((c) => c !== undefined && !isKnownCode(c));
    expect(stale).toEqual([]);
  });

  it('keeps error codes prefixed TOOLGATE_ERR_ and verdict codes unprefixed', () => {
    expect(Object.keys(errorCodes).every((c) => c.startsWith('TOOLGATE_ERR_'))).toBe(true);
    expect(Object.keys(verdictCodes).some((c) => c.startsWith('TOOLGATE_ERR_'))).toBe(false);
  });
});
