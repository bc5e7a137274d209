import {
  type Access,
  type CallContext,
  createAccess,
  fileUriPath,
  findArgPaths,
  uncertainAccess,
} from '@toolgate/core';

/**
 * The other path-like arguments of an undeclared tool that runs a command (`{cmd: "python", file: "x"}`),
 * found by core's `findArgPaths` (the one argument finder folder-rules uses too: names at any depth, values
 * shaped like paths): the host may hand them to the command, so each is a write, as folder-rules treats an
 * unknown tool's paths (seed 001: "assume write"). A non-string under a path name is uncertain.
 */
export function pathLikeArgs(
  args: Record<string, unknown>,
  skip: ReadonlySet<string>,
  ctx: CallContext,
  cwd: string | null,
  prefix: string,
): Access[] {
  const out: Access[] = [];
  const found = findArgPaths(args, { mode: 'loose', skip });
  if (found.overflow !== undefined)
    out.push(uncertainAccess('(arguments)', 'write', `shell:args.${prefix}`, found.overflow));
  for (const f of found.found) {
    const origin = `shell:args.${prefix}${f.where}`;
    const uri = typeof f.value === 'string' ? fileUriPath(f.value) : undefined;
    if (typeof f.value !== 'string' || f.value === '' || uri === null) {
      out.push(uncertainAccess(String(f.value), 'write', origin, `argument ${f.key} is not a usable path`));
      continue;
    }
    const raw = uri ?? f.value;
    if (raw.includes('\0') || (cwd === null && !/^(\/|~)/.test(raw)))
      out.push(
        uncertainAccess(raw, 'write', origin, `argument ${f.key} names a path that cannot be resolved`),
      );
    else out.push(createAccess(raw, 'write', { ...ctx, cwd: cwd ?? ctx.cwd }, { origin }));
  }
  return out;
}
