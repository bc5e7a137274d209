import { describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import * as archive from '../../src/programs/archives/archiveOptions.js';
import type { ArgSpec } from '../../src/programs/argv.js';
import * as copyMove from '../../src/programs/files/copyMoveOptions.js';
import { XARGS } from '../../src/programs/files/findXargs.js';
import * as listing from '../../src/programs/files/listingOptions.js';
import { PATCH } from '../../src/programs/files/patch.js';
import * as writer from '../../src/programs/files/writerOptions.js';
import * as checksum from '../../src/programs/text/checksumOptions.js';
import * as text from '../../src/programs/text/textOptions.js';
import * as textWriter from '../../src/programs/text/textWriterOptions.js';
import { fakeContext, formatAll } from '../helpers.js';

const tables: [string, ArgSpec][] = Object.entries({
  ...archive,
  ...checksum,
  ...copyMove,
  ...listing,
  ...text,
  ...textWriter,
  ...writer,
  XARGS,
  PATCH,
});

describe('option tables are complete and consistent data', () => {
  it.each(tables)('%s declares itself complete and names each option once', (_name, spec) => {
    expect(spec.shortFlags).toBeDefined();
    const letters = [...(spec.short ?? ''), ...(spec.shortFlags ?? ''), ...(spec.optionalShort ?? '')];
    expect(new Set(letters).size).toBe(letters.length);
    const longs = [...(spec.long ?? []), ...(spec.flags ?? [])];
    expect(new Set(longs).size).toBe(longs.length);
    for (const l of longs) expect(l).toMatch(/^[A-Za-z0-9][-A-Za-z0-9]*$/);
  });
});

const ctx = fakeContext();
const run = (cmd: string) => {
  const r = extractAccesses(cmd, ctx);
  return { got: formatAll(r.accesses), uncertain: r.uncertain };
};

describe('arities from the real programs (each was a bypass with the old tables)', () => {
  it.each([
    ['nl -p /etc/shadow', ['read /etc/shadow']],
    ['od -w8 /etc/shadow', ['read /etc/shadow']],
    ['od -w 8', ['read /ws/project/8']],
    ['shred -x /a', ['write /a']],
    ['mkfifo -Z /a', ['write /a']],
    ['mkfifo --context=ctx /a', ['write /a']],
    ['head -5 /a', ['read /a']],
    ['tail -n 5 /a', ['read /a']],
    ['ls --color /a', ['list /a']],
    ['ls -w 80 /a', ['list /a']],
    ['sort -k 2 -t , /a', ['read /a']],
    ['xargs -i cat {}', ['read ?']],
    ['xargs -i cat', []],
    ['xargs -I X cat X', ['read ?']],
    ['grep -5 pat /a', ['read /a']],
    ['du --time /a', ['list* /a']],
    ['cp --backup=numbered /a /b', ['read /a', 'write* /b', 'write /b~ (link)', 'write /b.~1~ (link)']],
  ])('%s', (cmd, expected) => {
    expect(run(cmd).got).toEqual([...expected].sort());
  });

  it('an option a complete table does not know is uncertain, on every family', () => {
    for (const cmd of [
      'cat --frobnicate /a',
      'ls -j /a',
      'du -y /a',
      'grep -j x /a',
      'rm -Z /a',
      'cp -j /a /b',
      'tar -cf a.tar -Y src',
      'gzip -j /a',
      'sha256sum -j /a',
      'xargs -j cat',
      'patch -J -i x',
      'zip -w a.zip f',
      'unzip -w a.zip',
    ]) {
      expect(run(cmd).uncertain, cmd).toBe(true);
    }
  });

  it('an abbreviated long option resolves as getopt does; an ambiguous one is uncertain', () => {
    expect(run('ls --recur /a').got).toEqual(['list* /a']);
    expect(run('ls --s /a').uncertain).toBe(true);
  });
});
