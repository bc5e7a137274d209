import { type Access, type CallContext, createAccess, uncertainAccess } from '@toolgate/core';
import { normaliseKey } from './commandKeys.js';

/** Names that say "a file" (the directory-like ones are handled as a possible working directory). */
const FILE_KEY = /(file|files|filename|filepath|src|source|dest|destination|target|output)$/;
const PATH_VALUE = /^(\/|~|\.{1,2}\/)/;

/**
 * The other path-like arguments of an undeclared tool that runs a command (`{cmd: "python", file: "x"}`):
 * the host may hand them to the command, so each is a write, as folder-rules treats an unknown tool's paths
 * (seed 001: "assume write"). A non-string under a file-like name is uncertain.
 */
export function pathLikeArgs(
  args: Record<string, unknown>,
  skip: ReadonlySet<string>,
  ctx: CallContext,
  cwd: string | null,
  prefix: string,
): Access[] {
  const out: Access[] = [];
  const one = (raw: unknown, key: string, origin: string) => {
    const named = FILE_KEY.test(normaliseKey(key));
    if (typeof raw !== 'string') {
      if (named && raw !== null && raw !== undefined && typeof raw !== 'number' && typeof raw !== 'boolean')
        out.push(uncertainAccess(String(raw), 'write', origin, `argument ${key} is not a usable path`));
      return;
    }
    if (raw === '' || (!named && !PATH_VALUE.test(raw))) return;
    if (raw.includes('\0') || (cwd === null && !PATH_VALUE.test(raw)))
      out.push(uncertainAccess(raw, 'write', origin, `argument ${key} names a path that cannot be resolved`));
    else out.push(createAccess(raw, 'write', { ...ctx, cwd: cwd ?? ctx.cwd }, { origin }));
  };
  for (const [key, value] of Object.entries(args)) {
    if (skip.has(key)) continue;
    const origin = `shell:args.${prefix}${key}`;
    if (!Array.isArray(value)) one(value, key, origin);
    else for (const [i, v] of value.entries()) one(v, key, `${origin}[${i}]`);
  }
  return out;
}
