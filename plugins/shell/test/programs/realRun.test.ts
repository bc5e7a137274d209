import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Access } from '@toolgate/core';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { fakeContext } from '../helpers.js';

/**
 * Reality is the oracle: each attack runs for real (bash, in a scratch workspace with a canary file outside
 * it) and must really read the canary or write into OUT — then the analysis must report that path, or be
 * uncertain. Each benign twin runs too and must stay certain and touch neither. `SECRET` and `OUT` in a
 * command are replaced by the canary's path and the output directory.
 */
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-realrun-')));
const ws = join(root, 'ws');
const out = join(root, 'out');
const secret = join(root, 'canary');
const CANARY = 'CANARY-SECRET-7f3a';
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
  mkdirSync(ws, { recursive: true });
  mkdirSync(out, { recursive: true });
  mkdirSync(join(root, 'home'), { recursive: true });
  writeFileSync(secret, `${CANARY}\n`);
  writeFileSync(join(ws, 'f'), 'a line\nfoo\n');
  writeFileSync(join(ws, 'data.json'), '{"name":"p","ok":true}\n');
});

const fill = (cmd: string) => cmd.replaceAll('SECRET', secret).replaceAll('OUT', out);

/** Runs the command for real; returns what it printed and whether it wrote anything into OUT. */
function runForReal(cmd: string): { printed: string; wrote: string[] } {
  let printed = '';
  try {
    printed = execFileSync('bash', ['-c', cmd], {
      cwd: ws,
      env: { ...process.env, HOME: join(root, 'home') },
      input: '',
      timeout: 10_000,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    printed = `${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  const wrote = readdirSync(out);
  for (const w of wrote) if (statSync(join(out, w)).isFile()) printed += readFileSync(join(out, w), 'utf8');
  return { printed, wrote };
}

function analyse(cmd: string): Access[] {
  const ctx = { ...fakeContext({ HOME: join(root, 'home') }, ws), workspace: ws, home: join(root, 'home') };
  return extractAccesses(cmd, ctx, {}, ws).accesses;
}

const covers = (accesses: Access[], path: string, op: 'read' | 'write') =>
  accesses.some((a) => !a.certain) ||
  accesses.some(
    (a) =>
      (a.op === op || a.op === 'write') &&
      (a.realPath === path ||
        a.path === path ||
        (a.scope === 'subtree' && path.startsWith(`${a.realPath}/`))),
  );

const READS: string[] = [
  // sed
  'sed 1rSECRET f',
  "sed '1r SECRET' f",
  "sed 'RSECRET' f",
  "sed -e p -e '$r SECRET' f",
  "sed '1e cat SECRET' f",
  "sed 's|.*|cat SECRET|e' f",
  "sed -n -e '/foo/{r SECRET' -e '}' f",
  "sed -s '1R SECRET' f f",
  "sed -z '1r SECRET' f",
  "sed -E 's/(a)/\\1/;1r SECRET' f",
  // awk
  'awk \'BEGIN{while((getline l < "SECRET")>0) print l}\'',
  'awk \'BEGIN{getline a[1] < "SECRET"; print a[1]}\'',
  'awk \'BEGIN{"cat SECRET" | getline x; print x}\'',
  'awk \'BEGIN{system("cat SECRET")}\'',
  'awk \'{print | "cat SECRET"}\' f',
  'awk \'BEGIN{f="SECRET"; getline l < f; print l}\'',
  'awk \'BEGIN{ARGV[1]="SECRET"; ARGC=2} 1\'',
  'awk \'BEGIN{c="cat "; system(c "SECRET")}\'',
  'awk \'BEGIN { printf("x") | "cat SECRET" }\'',
  'awk \'BEGIN{getline l < "\\SECRET"; print l}\'',
  // perl
  'perl -e \'print readpipe("cat SECRET")\'',
  "perl -e 'print `cat SECRET`'",
  "perl -e 'print qx{cat SECRET}'",
  'perl -e \'system "cat SECRET"\'',
  'perl -e \'open(F, "SECRET"); print <F>\'',
  'perl -ne \'print "@{[ `cat SECRET` ]}"\' f',
  "perl -pe 's{a}{`cat SECRET`}e' f",
  'perl -e \'push @ARGV, "SECRET"; print while <>\'',
  'perl -e \'print do { local(@ARGV, $/) = "SECRET"; <> }\'',
  // curl
  'curl -s file://SECRET',
  'curl -s file://localhost/SECRET',
  'curl -s --url file://SECRET',
  'curl -s -w @SECRET file:///dev/null',
  'curl -s -o OUT/c file://SECRET',
  'curl -s -T SECRET file://OUT/u',
  // jq
  "jq -n --rawfile v SECRET '$v'",
  "jq -Rn --rawfile v SECRET '$v | ascii_downcase'",
  'jq -R . SECRET',
  'jq -f SECRET data.json',
  'jq -R . data.json SECRET --args x',
  // sqlite3
  'sqlite3 db "select readfile(\'SECRET\')"',
  "sqlite3 db '.shell cat SECRET'",
  "sqlite3 db '.system cat SECRET'",
  "sqlite3 db '.import SECRET t' '.schema t'",
  "sqlite3 -cmd '.shell cat SECRET' db 'select 1'",
  'sqlite3 db ".read SECRET"',
  // python / node
  'python3 -c \'print(open("SECRET").read())\'',
  'node -e \'process.stdout.write(require("fs").readFileSync("SECRET"))\'',
  'node -p \'require("fs").readFileSync("SECRET", "utf8")\'',
  'python3 -E -c \'print(open("SECRET").read())\'',
  'echo \'print(open("SECRET").read())\' | python3',
  'echo \'print(open("SECRET").read())\' | python3 -',
  'python3 -m timeit -n1 -r1 -s \'print(open("SECRET").read())\' pass',
  'python3 -X utf8 -c \'import shutil,sys; shutil.copyfileobj(open("SECRET"), sys.stdout)\'',
  'python3 - <<< \'print(open("SECRET").read())\'',
  'node --eval=\'console.log(require("fs").readFileSync("SECRET", "utf8"))\'',
  'node --print \'require("fs").readFileSync("SECRET", "utf8")\'',
  'echo \'process.stdout.write(require("fs").readFileSync("SECRET"))\' | node',
  'node --input-type=module -e \'import fs from "fs"; console.log(fs.readFileSync("SECRET", "utf8"))\'',
  'node --import \'data:text/javascript,import fs from "fs"; console.log(fs.readFileSync("SECRET", "utf8"))\' -e 1',
  // jq: plain operand reads, in every input mode
  'jq -Rr . SECRET',
  'jq -R -s . SECRET',
  "jq -nR 'input' SECRET",
  'jq -R . data.json SECRET',
  // wget, ssh
  'wget -i SECRET',
  'wget -e input=SECRET',
  'wget -e "input = SECRET" -O -',
  'ssh -F SECRET host',
  'ssh -F SECRET -G host',
];

const WRITES: string[] = [
  "sed 'w OUT/x' f",
  "sed -n 'WOUT/x' f",
  "sed 's/a/b/w OUT/x' f",
  "sed 's/a/b/gwOUT/x' f",
  "sed 's|[|]|x|;w OUT/x' f",
  "sed -i'OUT/*' s/a/b/ f",
  "sed '1e touch OUT/x' f",
  'awk \'{print > "OUT/x"}\' f',
  'awk \'{print >> "OUT/x"}\' f',
  'awk \'{print > "OUT/" $1}\' f',
  'awk \'BEGIN{system("touch OUT/x")}\'',
  'gawk -i inplace \'{print > "OUT/x"}\' f',
  "perl -i'OUT/*' -pe 's/a/b/' f",
  'perl -e \'open(F, ">OUT/x")\'',
  'perl -MFile::Copy -e \'copy("SECRET", "OUT/x")\'',
  'curl -s -o OUT/x file://SECRET',
  'curl -s --libcurl OUT/x file:///dev/null',
  'curl -s -D OUT/x file:///dev/null',
  'curl -s -c OUT/x -b a=b http://127.0.0.1:9/ ; curl -s -T f file://OUT/x',
  'curl -s --trace OUT/x file:///dev/null',
  'wget -q -e output_document=OUT/x http://127.0.0.1:9/',
  'wget -q -o OUT/x http://127.0.0.1:9/',
  "sqlite3 db \"select writefile('OUT/x', 'y')\"",
  "sqlite3 db '.output OUT/x' 'select 1'",
  "sqlite3 db '.once OUT/x' 'select 1'",
  'sqlite3 db "ATTACH \'OUT/x\' AS x; create table x.t(a)"',
  'sqlite3 db "VACUUM INTO \'OUT/x\'"',
  "sqlite3 db '.backup OUT/x'",
  "sqlite3 file:OUT/x 'create table t(a)'",
  'sqlite3 db "ATTACH \'file:OUT/x?mode=rwc\' AS x; create table x.t(a)"',
  'curl -s --output-dir OUT -o x file://SECRET',
  'curl -s -o x --output-dir OUT file://SECRET',
  'ssh -E OUT/x -o BatchMode=yes -o ProxyCommand=false host',
  'python3 -m venv --without-pip OUT/x',
  'python3 -m json.tool data.json OUT/x',
  'node --redirect-warnings=OUT/x -e \'process.emitWarning("w")\'',
];

const BENIGN: string[] = [
  'sed -n 1,5p f',
  "sed 's/foo/bar/g' f",
  "sed -n '/a/,/foo/p' f",
  "sed '$!N;P;D' f",
  "sed 's/[/]/_/g' f",
  "sed '$a foo;w OUT/x' f",
  "awk '{print $1}' f",
  "awk '{s += length($0)} END {print s}' f",
  'awk \'{n=split($0,p,"/"); print p[n]}\' f',
  'awk \'{print $1 > "/dev/stderr"}\' f',
  "perl -pe 's/foo/bar/g' f",
  "perl -ne 'print if /foo/' f",
  "perl -lane 'print $F[0]' f",
  "perl -lne '$c++ }{ print $c' f",
  'curl -s file:///dev/null -o out.json',
  'curl -sS -b session=abc file:///dev/null',
  'jq .name data.json',
  "jq -c 'select(.ok)' data.json",
  "jq -n '$ARGS' --args SECRET",
  "sqlite3 db 'create table t(a); select count(*) from t'",
  'sqlite3 -readonly db .tables',
  'python3 -V',
  'node --version',
  'node -v',
];

describe('attacks that read a file outside the workspace are reported (checked by running them)', () => {
  it.each(READS)('%s', (cmd) => {
    const real = runForReal(fill(cmd));
    // wget and ssh print the canary lower-cased (as a host name, as a config keyword).
    expect(real.printed.toLowerCase(), 'the command really reads the canary').toContain(CANARY.toLowerCase());
    expect(covers(analyse(fill(cmd)), secret, 'read')).toBe(true);
  });
});

describe('attacks that write outside the workspace are reported (checked by running them)', () => {
  it.each(WRITES)('%s', (cmd) => {
    const real = runForReal(fill(cmd));
    expect(real.wrote.length, 'the command really writes into OUT').toBeGreaterThan(0);
    const target = join(out, real.wrote[0]!);
    expect(covers(analyse(fill(cmd)), target, 'write')).toBe(true);
  });
});

describe('benign twins run, touch neither the canary nor OUT, and stay certain', () => {
  it.each(BENIGN)('%s', (cmd) => {
    const real = runForReal(fill(cmd));
    expect(real.printed).not.toContain(CANARY);
    expect(real.wrote).toEqual([]);
    const accesses = analyse(fill(cmd));
    expect(accesses.filter((a) => !a.certain)).toEqual([]);
    expect(accesses.some((a) => a.realPath === secret || a.realPath?.startsWith(`${out}/`))).toBe(false);
    expect(existsSync(join(out, 'x'))).toBe(false);
  });
});
