/**
 * The files a unified or git diff creates, changes or deletes, as written in its headers (`diff --git a/X
 * b/Y`, `--- a/X`, `+++ b/Y`, `rename from/to`, `copy to`), with `strip` leading components removed as
 * `-p` does. `null` when a name cannot be read with certainty (a quoted name with escapes we do not decode,
 * or too few components to strip).
 */
export function patchTargets(text: string, strip = 1): string[] | null {
  const out = new Set<string>();
  const lines = text.split('\n');
  for (const line of lines) {
    let name: string | undefined;
    let raw = false;
    const m = /^(?:---|\+\+\+) (.+?)(?:\t.*)?\r?$/.exec(line);
    if (m) name = m[1];
    const mv = /^(?:rename|copy) (?:from|to) (.+?)\r?$/.exec(line);
    if (mv) {
      name = mv[1];
      raw = true; // these names are never prefixed with a/ b/
    }
    const g = /^diff --git (\S+) (\S+)\r?$/.exec(line);
    if (g) {
      for (const n of [g[1]!, g[2]!]) {
        const s = stripped(n, strip);
        if (s === null) return null;
        out.add(s);
      }
      continue;
    }
    if (name === undefined || name === '/dev/null') continue;
    if (name.startsWith('"')) return null;
    const s = raw ? name : stripped(name, strip);
    if (s === null) return null;
    out.add(s);
  }
  return [...out];
}

function stripped(name: string, strip: number): string | null {
  if (name.startsWith('"')) return null;
  const parts = name.split('/');
  if (parts.length <= strip) return null;
  return parts.slice(strip).join('/');
}
