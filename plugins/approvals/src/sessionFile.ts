import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { isWithin, normaliseHost } from '@toolgate/core';
import { sessionDirName } from './sessionDirName.js';
import type { Grant } from './types.js';

/** What is saved per session (`<dir>/<sessionId>/grants.json`, as seed 002 keeps confirmations). */
export interface SavedSession {
  version: 1;
  sessionId: string;
  cancelled: boolean;
  confirmations: number;
  grants: Grant[];
}

export type LoadResult =
  | { kind: 'missing' }
  | { kind: 'loaded'; data: SavedSession }
  | { kind: 'corrupt'; file: string; problem: string };

export function sessionFile(dir: string, sessionId: string): string {
  const folder = resolve(dir, sessionDirName(sessionId));
  // Belt and braces: the name cannot contain `/` or be `..`, but a containment check costs nothing here.
  if (!isWithin(folder, resolve(dir)) || folder === resolve(dir))
    throw new Error(`session id ${JSON.stringify(sessionId)} does not map inside ${dir}`);
  return join(folder, 'grants.json');
}

function grantProblem(g: unknown, i: number): string | undefined {
  if (g === null || typeof g !== 'object') return `grants[${i}] is not an object`;
  const x = g as Partial<Grant>;
  if (x.op !== 'read' && x.op !== 'write' && x.op !== 'list')
    return `grants[${i}].op must be "read", "write" or "list"`;
  if (x.scope !== 'path' && x.scope !== 'directory' && x.scope !== 'subtree' && x.scope !== 'host')
    return `grants[${i}].scope must be "path", "directory", "subtree" or "host"`;
  if (x.scope === 'host') {
    if (x.op === 'list') return `grants[${i}].op of a host grant must be "read" or "write"`;
    if (typeof x.path !== 'string' || normaliseHost(x.path) !== x.path)
      return `grants[${i}].path of a host grant must be a normalised host name`;
  } else if (typeof x.path !== 'string' || !isAbsolute(x.path) || x.path.includes('\0'))
    return `grants[${i}].path must be an absolute path`;
  if (typeof x.createdAt !== 'number') return `grants[${i}].createdAt must be a number`;
  if (x.expiresAt !== undefined && typeof x.expiresAt !== 'number')
    return `grants[${i}].expiresAt must be a number`;
  if (x.usesLeft !== undefined && (!Number.isInteger(x.usesLeft) || x.usesLeft < 0))
    return `grants[${i}].usesLeft must be a non-negative integer`;
  if (typeof x.by !== 'string') return `grants[${i}].by must be a string`;
  return undefined;
}

/** Why a stored session cannot be used (any store's, not only a file's), or undefined when it can. */
export function savedProblem(value: unknown, sessionId: string): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const v = value as Partial<SavedSession>;
  if (v.version !== 1) return `version must be 1, got ${JSON.stringify(v.version)}`;
  // The file must be this session's own: a copied or swapped file would hand one session another's grants.
  if (v.sessionId !== sessionId) return `sessionId is ${JSON.stringify(v.sessionId)}, not this session's`;
  if (typeof v.cancelled !== 'boolean') return 'cancelled must be a boolean';
  if (!Number.isInteger(v.confirmations) || (v.confirmations as number) < 0)
    return 'confirmations must be a non-negative integer';
  if (!Array.isArray(v.grants)) return 'grants must be an array';
  for (let i = 0; i < v.grants.length; i++) {
    const problem = grantProblem(v.grants[i], i);
    if (problem) return problem;
  }
  return undefined;
}

/** Reads a session's saved grants. A missing file is a new session; an unreadable or invalid one is corrupt. */
export async function loadSession(dir: string, sessionId: string): Promise<LoadResult> {
  const file = sessionFile(dir, sessionId);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'corrupt', file, problem: `cannot read: ${(error as Error).message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'corrupt', file, problem: `invalid JSON: ${(error as Error).message}` };
  }
  const problem = savedProblem(value, sessionId);
  if (problem) return { kind: 'corrupt', file, problem };
  return { kind: 'loaded', data: value as SavedSession };
}

/**
 * Writes a file atomically: a temporary file beside it, then rename(2), so a crash mid-write leaves either
 * the old file or the new one, never half of one.
 */
export async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, { mode: 0o600 });
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

export async function saveSession(dir: string, data: SavedSession): Promise<string> {
  const file = sessionFile(dir, data.sessionId);
  await mkdir(resolve(file, '..'), { recursive: true, mode: 0o700 });
  await writeAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
