import { describe, expect, it } from 'vitest';
import { extractAccesses, findMetacharacters } from '../src/index.js';
import { fakeContext, formatAll } from './helpers.js';

const ctx = fakeContext();
const run = (cmd: string) => formatAll(extractAccesses(cmd, ctx).accesses);

describe('extractAccesses', () => {
  it('closes the bypasses named in the issue', () => {
    expect(run('echo x > /etc/passwd')).toEqual(['write /etc/passwd']);
    expect(run('cat "/e"tc/passwd')).toEqual(['read /etc/passwd']);
    expect(run('bash -c "cat /etc/shadow"')).toEqual(['read /etc/shadow']);
    expect(run('rm -r -f /x')).toEqual(['write* /x (link)']);
    expect(run('cd /etc && cat passwd')).toContain('read /etc/passwd');
    expect(run('ls | xargs rm')).toContain('write ?');
    expect(run('find /srv -exec rm {} \\;')).toContain('write* /srv (link)');
  });

  it('never returns an empty list for what it cannot parse', () => {
    const r = extractAccesses('echo "unterminated', ctx);
    expect(r.uncertain).toBe(true);
    expect(r.accesses).toHaveLength(1);
  });

  it('rejects a command that is not a string with a clear error', () => {
    expect(() => extractAccesses(42 as unknown as string, ctx)).toThrow(/must be a string/);
  });
});

describe('findMetacharacters', () => {
  it('finds active constructs and ignores quoted text', () => {
    expect(findMetacharacters('echo $(date) `id`')).toEqual(['$(', '`']);
    expect(findMetacharacters("echo '$(date)'")).toEqual([]);
    expect(findMetacharacters('cat <<< x; eval y; source z; . w')).toEqual(['<<<', 'eval', 'source', '.']);
    expect(findMetacharacters('diff <(ls) a')).toEqual(['<(']);
  });
});
