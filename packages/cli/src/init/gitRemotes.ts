import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseTarget } from '@toolgate/core';

/** `.git` as a directory, or a worktree's `.git` file pointing at one (`gitdir: …`, then its `commondir`). */
function configFiles(root: string): string[] {
  const dotGit = join(root, '.git');
  if (!existsSync(dotGit)) return [];
  if (statSync(dotGit).isDirectory()) return [join(dotGit, 'config')];
  const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!m) return [];
  const gitdir = resolve(root, (m[1] as string).trim());
  const files = [join(gitdir, 'config')];
  const common = join(gitdir, 'commondir');
  if (existsSync(common)) {
    const dir = readFileSync(common, 'utf8').trim();
    files.push(join(isAbsolute(dir) ? dir : resolve(gitdir, dir), 'config'));
  }
  return files;
}

/**
 * The hosts of the project's git remotes (`url` and `pushurl` of every `[remote "…"]` in `.git/config`), in
 * HTTPS (`https://github.com/o/r.git`), SSH (`ssh://git@host:22/o/r`) and scp-like (`git@github.com:o/r.git`)
 * forms, normalised. `toolgate init` allows them so fetch and push keep working. A file that cannot be read
 * gives no host (the policy then simply does not name one).
 */
export function gitRemoteHosts(root: string): string[] {
  const hosts = new Set<string>();
  for (const file of configFiles(root)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    let inRemote = false;
    for (const line of text.split('\n')) {
      const section = /^\s*\[([^\]]+)\]/.exec(line);
      if (section) {
        inRemote = /^remote\s+"/.test((section[1] as string).trim());
        continue;
      }
      const kv = /^\s*(url|pushurl)\s*=\s*(.+?)\s*$/i.exec(line);
      if (!inRemote || !kv) continue;
      const url = (kv[2] as string).replace(/^"(.*)"$/, '$1');
      // Local remotes (a path, file://) reach no host.
      if (url.startsWith('/') || url.startsWith('.') || /^file:/i.test(url)) continue;
      const t = parseTarget(url, 'ssh');
      if (t.host !== null && t.certain) hosts.add(t.host);
    }
  }
  return [...hosts].sort();
}
