import type { Access } from '@toolgate/core';

// `folder-rules:args.path`, `args.paths[2]`, `x:args.ops[0].path`: the argument an access was read from.
const ORIGIN = /(?:^|:)args((?:\.[A-Za-z_$][\w$-]*|\[\d+\])+)$/;
const STEP = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]/g;

function stepsOf(origin: string): Array<string | number> | undefined {
  const m = ORIGIN.exec(origin);
  if (!m) return undefined;
  return [...m[1]!.matchAll(STEP)].map((s) => (s[1] !== undefined ? s[1] : Number(s[2])));
}

function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)]));
  return value;
}

/**
 * The call's arguments with every path the guard judged replaced by the absolute path it judged.
 *
 * Why: the guard resolves a relative path (and `~`, `$VAR`) against the *call's* context (`ctx.cwd`, `ctx.home`),
 * while a tool's `execute` resolves it against `process.cwd()`. When the two differ, `notes.md` was judged as
 * `/ws/notes.md` and executed as `/srv/app/notes.md`: one file allowed, another read. Handing `execute` the
 * judged absolute path makes the decision and the execution agree on the file. Arguments no access came from
 * (or whose value is not the raw string the access was read from) are left as they are.
 */
export function absoluteArgs(input: unknown, accesses: readonly Access[]): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  let out: Record<string, unknown> | undefined;
  for (const access of accesses) {
    if (!access.certain || access.path === access.raw) continue;
    const steps = stepsOf(access.origin);
    if (!steps || steps.length === 0) continue;
    out ??= clone(input) as Record<string, unknown>;
    let holder: unknown = out;
    for (const step of steps.slice(0, -1)) {
      holder =
        holder !== null && typeof holder === 'object'
          ? (holder as Record<string | number, unknown>)[step]
          : undefined;
    }
    const last = steps[steps.length - 1]!;
    if (holder === null || typeof holder !== 'object') continue;
    const target = holder as Record<string | number, unknown>;
    if (target[last] === access.raw) target[last] = access.path;
  }
  return out ?? input;
}
