import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxCompileError } from '../sandboxError.js';

// Every proxy's socket lives under one directory per user, `<tmp>/toolgate-net-<uid>/<random>/proxy.sock`,
// and every network-confined sandbox mounts an empty tmpfs over that directory before binding its own socket
// back in: a sandbox never sees the proxy of another run (a socket in a 0700 directory of the same user is
// otherwise connectable from inside, and another run's proxy may allow more). Runs started with another
// TMPDIR use another directory (see README, Limits).

/** The directory of this user's proxy sockets (created 0700 when missing; refused when not this user's alone). */
export function proxyBase(): string {
  const uid = process.getuid?.() ?? 0;
  const base = join(tmpdir(), `toolgate-net-${uid}`);
  try {
    mkdirSync(base, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new SandboxCompileError(
        `cannot create ${base} for the sandbox's network proxy: ${(error as Error).message}`,
      );
  }
  const st = lstatSync(base);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0)
    throw new SandboxCompileError(
      `${base} is not a directory of this user's alone (mode 0700): the sandbox's network proxy will not use it`,
    );
  return base;
}

/**
 * `proxyBase()`'s path when it exists (nothing is created): a sandbox with the host's network hides it too —
 * it gains no network from another run's proxy, but with `/tmp` writable it could remove or replace the
 * sockets of runs whose sandboxes have none.
 */
export function existingProxyBase(): string | undefined {
  const base = join(tmpdir(), `toolgate-net-${process.getuid?.() ?? 0}`);
  try {
    return lstatSync(base).isDirectory() ? base : undefined;
  } catch {
    return undefined;
  }
}

/** A fresh socket path under `proxyBase()` whose directory does not exist yet (the proxy creates it). */
export function newProxySocketPath(): string {
  return join(proxyBase(), randomBytes(16).toString('hex'), 'proxy.sock');
}
