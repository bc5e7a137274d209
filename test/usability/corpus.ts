import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a command should get: allowed, denied by a certain rule, or uncertain (toolgate cannot know). */
export type Expected = 'allow' | 'deny' | 'uncertain';

export interface CorpusCase {
  command: string;
  /** Workspace A (no `.env`) and B (a gitignored `.env` at the root). */
  expectA: Expected;
  expectB: Expected;
  why: string;
  /** The file it comes from, without `.tsv` (`git`, `text`…): the category mismatches are counted by. */
  category: string;
  /** `file:line`, for a reviewer. */
  where: string;
  /**
   * The policy file (beside policy.yaml) the case is judged under, from a `# policy: FILE` line at the top of
   * its corpus file; absent: policy.yaml. (network.tsv uses policy-network.yaml: the same rules plus a
   * `network` section, issue 26.)
   */
  policy?: string;
}

const EXPECTED: ReadonlySet<string> = new Set(['allow', 'deny', 'uncertain']);
const CORPUS_DIR = fileURLToPath(new URL('./corpus/', import.meta.url));

/**
 * Parses one corpus file: `command<TAB>A<TAB>B<TAB>why` per line, `#` comments and blank lines skipped. A `⏎`
 * in a command is a newline (heredocs), so that every case stays one reviewable line.
 */
export function parseCorpus(text: string, category: string): CorpusCase[] {
  const cases: CorpusCase[] = [];
  let policy: string | undefined;
  text.split('\n').forEach((line, i) => {
    const directive = /^# policy: (\S+)\s*$/.exec(line);
    if (directive) {
      if (cases.length > 0)
        throw new Error(`${category}.tsv:${i + 1}: "# policy:" must come before the cases`);
      policy = directive[1];
      return;
    }
    if (line.trim() === '' || line.startsWith('#')) return;
    const where = `${category}.tsv:${i + 1}`;
    const cols = line.split('\t');
    const [command, a, b, why] = cols;
    if (cols.length !== 4 || !command || !why || !a || !b || !EXPECTED.has(a) || !EXPECTED.has(b))
      throw new Error(
        `${where}: want "command<TAB>allow|deny|uncertain<TAB>…<TAB>why", got ${JSON.stringify(line)}`,
      );
    cases.push({
      command: command.replaceAll('⏎', '\n'),
      expectA: a as Expected,
      expectB: b as Expected,
      why,
      category,
      where,
      ...(policy !== undefined ? { policy } : {}),
    });
  });
  return cases;
}

/** Every case of every `corpus/*.tsv`, in file order; a malformed line or a duplicate command throws. */
export function loadCorpus(dir = CORPUS_DIR): CorpusCase[] {
  const all = readdirSync(dir)
    .filter((f) => f.endsWith('.tsv'))
    .sort()
    .flatMap((f) => parseCorpus(readFileSync(join(dir, f), 'utf8'), f.slice(0, -'.tsv'.length)));
  const seen = new Map<string, string>();
  for (const c of all) {
    const before = seen.get(c.command);
    if (before) throw new Error(`${c.where}: duplicate of ${before}: ${c.command}`);
    seen.set(c.command, c.where);
  }
  return all;
}
