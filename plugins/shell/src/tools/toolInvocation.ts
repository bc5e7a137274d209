import { type Access, type CallContext, type CallState, createAccess, uncertainAccess } from '@toolgate/core';
import { normaliseKey } from './commandKeys.js';
import { applyToolEnv } from './toolEnv.js';
import type { CompiledToolSpec } from './toolSpec.js';

/** Argument names that say "directory" without the spec declaring them: the command may run there. */
const DIR_KEY = /(cwd|dir|directory|workdir|workingdir|workingdirectory|folder|path|root)$/;
/** Names that say "environment" or "interpreter": the host may start the command with them. */
const STATE_KEY = /^(env|envs|environment|envvars|environmentvariables|shell|interpreter)$/;

/** Where and in what state a tool's command starts, plus what could not be known about it. */
export interface ToolInvocation {
  /** The arguments the spec's names refer to (`args.action` for `base: 'action'`). */
  args: Record<string, unknown>;
  /** The context with the tool's environment applied. */
  ctx: CallContext;
  /** The directory the command starts in; null when it cannot be known. */
  cwd: string | null;
  /** The working-directory read and every uncertain finding so far. */
  accesses: Access[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function uncertain(raw: string, origin: string, reason: string): Access {
  return uncertainAccess(raw, 'write', `shell:args.${origin}`, reason);
}

/**
 * Reads the arguments around a tool's command: the nesting object, who it runs as, its environment and its
 * working directory. A directory-, environment- or shell-like argument the spec does not name is uncertain:
 * the host may run the command there, or with those variables, or in that shell.
 */
export function toolInvocation(
  callArgs: Record<string, unknown>,
  spec: CompiledToolSpec,
  state: CallState,
): ToolInvocation {
  const accesses: Access[] = [];
  let args = callArgs;
  let prefix = '';
  if (spec.base !== undefined && Object.hasOwn(callArgs, spec.base)) {
    const inner = callArgs[spec.base];
    if (!isPlainObject(inner)) {
      accesses.push(uncertain(String(inner), spec.base, `the ${spec.base} argument is not an object`));
      return { args: {}, ctx: state.ctx, cwd: null, accesses };
    }
    args = inner;
    prefix = `${spec.base}.`;
  }
  // Responses API actions are typed; only `exec` runs a command, anything else is not understood.
  if (spec.base !== undefined && args.type !== undefined && args.type !== 'exec')
    accesses.push(
      uncertain(String(args.type), `${prefix}type`, `action type ${JSON.stringify(args.type)} is not known`),
    );

  const known = new Set<string>([spec.commandArg, ...spec.cwdArgs]);
  for (const k of [spec.envArg, spec.shellArg, spec.loginArg, spec.inputFlagArg, spec.userArg, spec.base])
    if (k !== undefined) known.add(k);
  for (const scope of spec.base !== undefined && args !== callArgs ? [callArgs, args] : [args]) {
    for (const [key, value] of Object.entries(scope)) {
      if (known.has(key) || value === undefined || value === null || value === '') continue;
      const k = normaliseKey(key);
      if (DIR_KEY.test(k))
        accesses.push(
          uncertain(String(value), key, `argument ${key} may name the directory the command runs in`),
        );
      // `shell: true` (a subprocess flag) names no other shell; anything else may.
      else if (STATE_KEY.test(k) && typeof value !== 'boolean')
        accesses.push(
          uncertain(key, key, `argument ${key} may change the environment or shell the command runs in`),
        );
    }
  }

  if (
    spec.userArg !== undefined &&
    args[spec.userArg] !== undefined &&
    args[spec.userArg] !== null &&
    args[spec.userArg] !== ''
  )
    accesses.push(
      uncertain(String(args[spec.userArg]), `${prefix}${spec.userArg}`, 'the command runs as another user'),
    );

  let ctx = state.ctx;
  if (spec.envArg !== undefined) {
    const env = applyToolEnv(state.ctx, args[spec.envArg]);
    if ('uncertain' in env) {
      accesses.push(uncertain(`${spec.envArg}`, `${prefix}${spec.envArg}`, env.uncertain));
      return { args, ctx, cwd: null, accesses };
    }
    ctx = env.ctx;
  }

  let cwd: string | null = ctx.cwd;
  for (const name of spec.cwdArgs) {
    if (!Object.hasOwn(args, name) || args[name] === undefined || args[name] === null) continue;
    const value = args[name];
    const origin = `shell:args.${prefix}${name}`;
    if (typeof value !== 'string' || value === '' || value.includes('\0')) {
      accesses.push(
        uncertainAccess(String(value), 'read', origin, `the ${name} argument is not a usable path`),
      );
      cwd = null;
    } else {
      const a = createAccess(value, 'read', ctx, { origin });
      accesses.push(a);
      cwd = a.certain ? a.realPath : null;
    }
    break;
  }
  return { args, ctx, cwd, accesses };
}
