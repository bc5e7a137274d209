import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeAtomic } from './sessionFile.js';
import type { Grant } from './types.js';

/** One persisted approval, as a policy rule (`pattern` + `access` tier) the user can review and keep. */
export interface OverlayRule {
  pattern: string;
  access: 'read' | 'write';
  source: 'approvals';
  sessionId: string;
  by: string;
  grantedAt: string;
}

export interface Overlay {
  version: 1;
  rules: OverlayRule[];
}

export function ruleFor(grant: Grant, sessionId: string): OverlayRule {
  const base = grant.path === '/' ? '' : grant.path;
  const pattern =
    grant.scope === 'subtree' ? `${base}/**` : grant.scope === 'directory' ? `${base}/*` : grant.path;
  return {
    pattern,
    // A granted listing is a read of the directory in the policy model.
    access: grant.op === 'list' ? 'read' : grant.op,
    source: 'approvals',
    sessionId,
    by: grant.by,
    grantedAt: new Date(grant.createdAt).toISOString(),
  };
}

/**
 * Appends rules to the overlay file (atomically). An existing file that is not an overlay is never
 * overwritten — the user's data wins — and the caller is told why nothing was written.
 */
export async function appendOverlay(file: string, rules: OverlayRule[]): Promise<void> {
  let overlay: Overlay = { version: 1, rules: [] };
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) {
    const parsed = JSON.parse(text) as Partial<Overlay>;
    if (parsed === null || typeof parsed !== 'object' || parsed.version !== 1 || !Array.isArray(parsed.rules))
      throw new Error(`${file} is not an approvals overlay ({"version": 1, "rules": [...]}); left untouched`);
    overlay = parsed as Overlay;
  }
  const known = new Set(overlay.rules.map((r) => `${r.access}\u0000${r.pattern}`));
  for (const rule of rules) {
    if (known.has(`${rule.access}\u0000${rule.pattern}`)) continue;
    known.add(`${rule.access}\u0000${rule.pattern}`);
    overlay.rules.push(rule);
  }
  await mkdir(dirname(file), { recursive: true });
  await writeAtomic(file, `${JSON.stringify(overlay, null, 2)}\n`);
}
