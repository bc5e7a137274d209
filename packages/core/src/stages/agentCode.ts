import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import { uncertainAccess } from '../createAccess.js';
import type { Access, CallContext } from '../types.js';

/** Whether a policy lets the agent write a path (`GuardPlugin.agentWritable`). */
export type WritableProbe = (realPath: string, ctx: CallContext) => boolean;

// Where a system installs programs. Used only when no installed policy can say what the agent may write:
// a program found anywhere else is taken to be one the agent could have put there (fail closed).
const SYSTEM_PROGRAM_DIRS =
  /^\/(usr\/(local\/)?(s?bin|lib(exec|32|64)?)|s?bin|lib(32|64)?|nix\/store|snap)(\/|$)/;

/**
 * Invariant 6 (prove or sandbox), program identity: an access marked `runs` names the file whose code runs as
 * a program. It is a marker, not an access of the program's (finding `/usr/bin/cat` is no read the policy
 * must allow): it is taken out of the list. When some policy lets the agent write that file (`./a.out`,
 * `node_modules/.bin/vitest`, a writable directory early on `$PATH`), what runs is the agent's own code and no
 * model of the program's name can prove the call: an uncertain access takes its place, naming the file. A list
 * without markers is returned as it is (the common call allocates nothing).
 */
export function markAgentCode(
  accesses: Access[],
  ctx: CallContext,
  probes: readonly WritableProbe[],
): Access[] {
  let k = 0;
  while (k < accesses.length && accesses[k]!.runs === undefined) k++;
  if (k === accesses.length) return accesses;
  const out = accesses.slice(0, k);
  for (; k < accesses.length; k++) {
    const a = accesses[k]!;
    if (a.runs === undefined) out.push(a);
    else if (!a.certain || a.realPath === null)
      out.push(
        uncertainAccess(
          a.raw,
          'write',
          a.origin,
          `${a.runs}: which program runs is not known (${a.reason ?? 'unknown'})`,
        ),
      );
    else {
      // The file that runs, and every link on the way to it: a link the agent can write (`./py -> python3`)
      // chooses the program, and its name chooses the model it is judged by.
      const writable = controlledOnTheWay(a, ctx, probes);
      if (writable !== undefined)
        out.push(
          uncertainAccess(
            a.raw,
            'write',
            a.origin,
            writable === a.realPath
              ? `${a.runs} ${a.realPath}, a file the agent can write: what it does is not analysed`
              : `${a.runs} ${a.realPath} through ${writable}, a link the agent can write: what it does is not analysed`,
          ),
        );
    }
  }
  return out;
}

/** The first of the file and the links leading to it that the agent can write, if any. */
function controlledOnTheWay(
  a: Access,
  ctx: CallContext,
  probes: readonly WritableProbe[],
): string | undefined {
  if (agentCanWrite(a.realPath!, ctx, probes)) return a.realPath!;
  for (const hop of a.hops ?? []) if (agentCanWrite(hop.link, ctx, probes)) return hop.link;
  return undefined;
}

function agentCanWrite(realPath: string, ctx: CallContext, probes: readonly WritableProbe[]): boolean {
  return policyLetsWrite(realPath, ctx, probes) && kernelLetsWrite(realPath);
}

function policyLetsWrite(realPath: string, ctx: CallContext, probes: readonly WritableProbe[]): boolean {
  if (probes.length === 0) return !SYSTEM_PROGRAM_DIRS.test(realPath);
  for (const probe of probes) {
    try {
      if (probe(realPath, ctx)) return true;
    } catch {
      return true; // a policy that cannot answer proves nothing (fail closed)
    }
  }
  return false;
}

/**
 * Whether the kernel lets this process (the agent's user: hooks and gateways run as it) replace the file:
 * write it, or create or rename an entry in its directory. A permissive policy (`default: write`) run by an
 * ordinary user does not make `/usr/bin/git` the agent's code — root's can. Asked only after a policy said
 * yes, so the common call makes no syscall here.
 */
function kernelLetsWrite(path: string): boolean {
  // The file itself, else the nearest existing directory above it (a new or replaced entry goes there).
  let p = path;
  for (;;) {
    try {
      accessSync(p, constants.W_OK);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && p !== path) return false;
    }
    const up = dirname(p);
    if (up === p) return false;
    p = up;
  }
}
