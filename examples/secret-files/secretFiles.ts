import { type GuardPlugin, isWithin, Stage } from '@toolgate/core';

export interface SecretFilesOptions {
  /** File names that hold secrets wherever they are (default: private keys, .env files, cloud credentials). */
  names?: readonly string[];
  /** Directories whose files may be read anyway (e.g. a fixtures folder with fake keys). */
  except?: readonly string[];
}

const DEFAULT_NAMES = ['id_rsa', 'id_ed25519', '.env', '.env.local', 'credentials', '.netrc', '.pgpass'];

/**
 * Denies any access to a file whose *real* name is a known secret file — also when the model reaches it
 * through a symlink with an innocent name, because core hands policies the resolved path.
 *
 * @example
 * ```ts
 * const guard = createGuard({ plugins: [argPaths(), secretFiles({ except: ['/ws/test/fixtures'] })] });
 * ```
 */
export function secretFiles(options: SecretFilesOptions = {}): GuardPlugin {
  const names = new Set(options.names ?? DEFAULT_NAMES);
  const except = [...(options.except ?? [])];
  for (const dir of except) {
    if (!dir.startsWith('/'))
      throw new TypeError(`secretFiles: except entries must be absolute, got ${JSON.stringify(dir)}`);
  }
  return {
    name: 'secret-files',
    // A policy: it judges paths. (An extractor or an observer leaves this out.)
    policy: true,
    apply(hooks) {
      hooks.beforeToolCall.tap({ stage: Stage.POLICY }, (_call, state) => {
        for (const access of state.accesses) {
          const real = access.realPath;
          if (real === null) continue; // core already denies uncertain accesses
          const base = real.slice(real.lastIndexOf('/') + 1);
          if (!names.has(base) || except.some((dir) => isWithin(real, dir))) continue;
          return {
            action: 'deny',
            code: 'PATH_DENIED',
            reason: `${base} holds secrets`,
            access,
            hint: 'Ask the user for the value you need instead of reading the file.',
          };
        }
        return undefined;
      });
    },
  };
}

/** A tiny extractor: every string argument named `path` or `file_path` is a read or write of that path. */
export function argPaths(): GuardPlugin {
  return {
    name: 'arg-paths',
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
        const op = /write|edit|delete|move/.test(call.tool) ? 'write' : 'read';
        const out = [...accesses];
        for (const key of ['path', 'file_path']) {
          const raw = call.args[key];
          if (typeof raw === 'string') out.push(state.access(raw, op, { origin: `arg-paths:args.${key}` }));
        }
        return out;
      });
    },
  };
}
