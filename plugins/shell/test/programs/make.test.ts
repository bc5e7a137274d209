import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { expandMake, parseMakefile } from '../../src/programs/build/makefile.js';
import { context, verdict } from './envJudge.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function project(makefile: string, name = 'Makefile'): string {
  const d = mkdtempSync(join(tmpdir(), 'tg-make-'));
  dirs.push(d);
  writeFileSync(join(d, name), makefile);
  mkdirSync(join(d, 'src'));
  writeFileSync(join(d, 'src/main.c'), 'int main(){}\n');
  return d;
}

function accesses(cmd: string, cwd: string): string[] {
  const r = extractAccesses(cmd, context(cwd));
  return r.accesses.map((a) =>
    a.certain ? `${a.op}${a.scope === 'subtree' ? '*' : ''} ${a.realPath}` : `${a.op} ?`,
  );
}

const PLAIN = [
  'OUT = build',
  'CFLAGS := -O2',
  '.PHONY: all clean test',
  'all: $(OUT)/app',
  '$(OUT)/app: src/main.c',
  '\t@mkdir -p $(OUT)',
  '\t$(CC) $(CFLAGS) -o $@ $<',
  'clean:',
  '\t$(RM) -r $(OUT)',
  'test: all',
  '\t./$(OUT)/app > /tmp/make-test.log',
  'leak:',
  '\tcat ~/.ssh/id_rsa',
  '',
].join('\n');

describe('make analyses plain recipes as shell', () => {
  it('the default target and its prerequisites, with variables and automatic variables expanded', () => {
    const d = project(PLAIN);
    const a = accesses('make', d);
    expect(a).toContain(`read ${d}/Makefile`);
    expect(a).toContain(`write ${d}/build`);
    // cc is not in the command table: its operands get the unknown-command treatment (writes).
    expect(a).toContain(`write ${d}/src/main.c`);
    expect(a).toContain(`write ${d}/build/app`);
    expect(accesses('make clean', d)).toContain(`write* ${d}/build`);
    expect(accesses('make test', d)).toContain('write /tmp/make-test.log');
    expect(accesses('make leak', d)).toContain('read /home/agent/.ssh/id_rsa');
    expect(extractAccesses('make', context(d)).uncertain).toBe(false);
  });

  it('a .env beside the Makefile does not deny a build that does not touch it', () => {
    const d = project(PLAIN);
    writeFileSync(join(d, '.env'), 'K=1\n');
    expect(verdict('make', d)).toBe('allow');
    expect(verdict('make clean', d)).toBe('allow');
    expect(verdict('make -C . clean', d)).toBe('allow');
  });

  it('-C, -f and command-line variables', () => {
    const d = project(PLAIN, 'build.mk');
    expect(accesses(`make -C ${d} -f build.mk clean`, tmpdir())).toContain(`write* ${d}/build`);
    expect(accesses('make -f build.mk clean OUT=/tmp/out', d)).toContain('write* /tmp/out');
    // make -n reads the makefile and lists its directory (its directory cache), nothing else.
    expect(accesses('make -n -f build.mk clean', d)).toEqual([`list ${d}`, `read ${d}/build.mk`]);
  });

  it('an undefined variable comes from the environment, which the shell analysis sees too', () => {
    const d = project('clean:\n\trm -rf $(TARGET)/x\n');
    expect(accesses('export TARGET=/etc; make clean', d)).toContain('write* /etc/x');
    // Unset in the shell the guard sees: make would use the environment's value, which is not known.
    expect(extractAccesses('make clean', context(d)).uncertain).toBe(true);
  });
});

describe('make runs goals in order, prerequisites first (make(1)); with -j in any order', () => {
  const MK = '.PHONY: clean build\nclean:\n\trm -rf dist\nbuild:\n\tmkdir -p dist\n\tcp -r src/. dist/\n';
  const unknown = (cmd: string, d: string) =>
    extractAccesses(cmd, context(d)).accesses.some((a) => a.unknownContents !== undefined);

  it('make clean build: the rm of dist runs before the copy into it (twin of a false deny)', () => {
    const d = project(MK);
    mkdirSync(join(d, 'dist'));
    writeFileSync(join(d, 'dist', 'old.js'), '');
    expect(unknown('make clean build', d)).toBe(false);
    expect(verdict('make clean build', d)).toBe('allow');
  });

  it('make build clean, make -j2 clean build, MAKEFLAGS=-j: the copy may come first', () => {
    const d = project(MK);
    mkdirSync(join(d, 'dist'));
    expect(unknown('make build clean', d)).toBe(true);
    expect(unknown('make -j2 clean build', d)).toBe(true);
    expect(unknown('MAKEFLAGS=-j4 make clean build', d)).toBe(true);
    const own = project(`MAKEFLAGS += -j2\n${MK}`);
    const r = extractAccesses('make clean build', context(own));
    expect(r.uncertain || r.accesses.some((a) => a.unknownContents !== undefined)).toBe(true);
  });
});

describe('make: what we do not follow is uncertain (attacks)', () => {
  const cases: [string, string][] = [
    ['include other.mk\nall:\n\ttrue\n', 'make'],
    ['X != cat /etc/shadow\nall:\n\techo $(X)\n', 'make'],
    ['all:\n\techo $(shell cat /etc/shadow)\n', 'make'],
    ['SHELL = /tmp/evil\nall:\n\ttrue\n', 'make'],
    ['%.o: %.c\n\tcat /etc/shadow\nall: x.o\n', 'make'],
    ['ifeq ($(X),1)\nall:\n\ttrue\nendif\n', 'make'],
    ['define R\ncat /etc/shadow\nendef\nall:\n\t$(R)\n', 'make'],
    ['.ONESHELL:\nall:\n\tcd /etc\n\tcat shadow\n', 'make'],
    ['all:\n\ttrue\n', 'make -f - all'],
    ['all:\n\ttrue\n', 'make --eval="x:;cat /etc/shadow" all'],
    ['all:\n\ttrue\n', 'make SHELL=/tmp/evil'],
    ['all:\n\techo $(X:.c=.o)\n', 'make'],
    ['all: ; cat $(wildcard /etc/*)\n', 'make'],
    ['all:\n\ttrue\n', 'make --frobnicate'],
    ['all:\n\ttrue\n', 'make $(echo all)'],
  ];
  for (const [mk, cmd] of cases) {
    it(`uncertain: ${cmd} with ${JSON.stringify(mk.slice(0, 30))}`, () => {
      const d = project(mk);
      expect(extractAccesses(cmd, context(d)).uncertain).toBe(true);
    });
  }

  it('a target with no rule: uncertain where a built-in rule could make it from a source beside it', () => {
    const d = project('all: missing.o\n');
    writeFileSync(join(d, 'missing.c'), 'int main(){}');
    expect(extractAccesses('make', context(d)).uncertain).toBe(true);
    expect(extractAccesses('make other', context(d)).uncertain).toBe(false);
    // A pattern, suffix or .DEFAULT rule of the Makefile may make anything.
    for (const mk of ['.c.o:\n\tcat /etc/shadow\n', '.DEFAULT:\n\tcat /etc/shadow\n', '%: %.x\n\ttrue\n']) {
      const e = project(mk);
      expect(extractAccesses('make clean', context(e)).uncertain, mk).toBe(true);
    }
  });

  it('a target with no rule and nothing to make it from: make stops, nothing runs (twin)', () => {
    const d = project('.PHONY: all\nall:\n\ttrue\n');
    expect(extractAccesses('make clean', context(d)).uncertain).toBe(false);
    const e = project('all: missing.o\n');
    expect(extractAccesses('make', context(e)).uncertain).toBe(false);
  });

  it('a Makefile the line writes first is unknown', () => {
    const d = project(PLAIN);
    expect(
      extractAccesses("printf 'all:\\n\\tcat /etc/shadow\\n' > Makefile && make", context(d)).uncertain,
    ).toBe(true);
  });
});

describe('makefile parsing', () => {
  it('expands recursively, keeps $$ for the shell, rejects functions', () => {
    const vars = new Map([
      ['A', '$(B)/x'],
      ['B', 'dir'],
    ]);
    expect(expandMake('cp $(A) $${HOME} $@', vars, new Map([['@', 't']]))).toBe('cp dir/x ${HOME} t');
    expect(expandMake('$(patsubst a,b,c)', vars, new Map())).toBeNull();
    const mk = parseMakefile('A = 1\nA += 2\nB ?= 3\nB ?= 4\nx y: z\n\techo $(A)\n');
    expect('uncertain' in mk).toBe(false);
    if (!('uncertain' in mk)) {
      expect(mk.vars.get('A')).toBe('1 2');
      expect(mk.vars.get('B')).toBe('3');
      expect(mk.defaultTarget).toBe('x');
      expect(mk.rules.get('y')?.prereqs).toEqual(['z']);
    }
  });
});
