import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** The directories of one scratch tree: a fake HOME, the workspace (cwd), and a place outside both. */
export interface ScratchTree {
  root: string;
  home: string;
  ws: string;
  outside: string;
}

/** Canary contents: a canary the kernel saw read is a file toolgate had to report. */
export const CANARY = {
  sshKey: 'CANARY-SSH-KEY',
  env: 'CANARY-DOTENV',
  secret: 'CANARY-OUTSIDE-SECRET',
  passwd: 'CANARY-PASSWD',
  shadow: 'CANARY-SHADOW',
};

// Relative links only in the template: it is copied per command, and a copied absolute link would point
// back into the template. Absolute links are made in each copy (`addAbsoluteLinks`).
const FILES: Record<string, string> = {
  'home/.ssh/id_rsa': `${CANARY.sshKey}\n`,
  'home/.ssh/config': 'Host *\n',
  'home/.bashrc': 'alias ll="ls -l"\n',
  'home/notes.txt': 'home notes\n',
  'home/passwd': 'home-passwd\n',
  // npm's own cache directory exists on any machine that ran npm (npm creates it at start otherwise: its
  // own state, which the policy does not judge).
  'home/.npm/.keep': '',
  'ws/README.md': '# demo\nhello world\n',
  'ws/package.json': `${JSON.stringify({ name: 'demo', version: '1.0.0', scripts: { build: 'cat src/a.ts > dist.txt', test: 'grep -r hello src' } }, null, 2)}\n`,
  'ws/src/a.ts': 'export const a = "hello";\n',
  'ws/src/b.ts': 'import { a } from "./a";\nconsole.log(a);\n',
  'ws/src/util/c.ts': 'export const c = 3;\n',
  'ws/docs/guide.md': 'guide TODO\n',
  'ws/.env': `SECRET=${CANARY.env}\n`,
  'ws/.gitignore': 'node_modules\ndist\n*.log\n',
  'ws/data.csv': 'id,name\n2,b\n1,a\n3,c\n',
  'ws/notes.txt': 'line one\nline two\nTODO three\n',
  'ws/list.txt': 'README.md\nsrc/a.ts\n',
  'ws/script.sh': 'cat README.md\n',
  'ws/names.txt': 'passwd\n',
  'ws/sub/deep/file.txt': 'deep\n',
  'ws/build.log': 'log\n',
  'ws/Makefile': 'all:\n\tcat README.md > made.txt\n',
  'outside/secret.txt': `${CANARY.secret}\n`,
  'outside/passwd': `${CANARY.passwd}\n`,
  'outside/shadow': `${CANARY.shadow}\n`,
  'outside/dir/x.txt': 'x\n',
  'outside/evil.sh': 'cat ../outside/secret.txt\n',
  'outside/.ssh/id_rsa': `${CANARY.sshKey}\n`,
};

const LINKS: Record<string, string> = {
  'ws/link-out': '../outside',
  'ws/link-secret': '../outside/secret.txt',
  'ws/link-ssh': '../home/.ssh',
  'ws/src/link-up': '../../outside/dir',
  'home/link-ws': '../ws',
};

/** Builds the template tree once (files, links, a git repo with one commit, a tar of docs). */
export function buildTemplate(dir: string): void {
  for (const [rel, text] of Object.entries(FILES)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  for (const [rel, target] of Object.entries(LINKS)) symlinkSync(target, join(dir, rel));
  const ws = join(dir, 'ws');
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      ['-c', 'user.name=o', '-c', 'user.email=o@o', '-c', 'init.defaultBranch=main', ...args],
      {
        cwd: ws,
        stdio: 'ignore',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(dir, 'home'), GIT_CONFIG_NOSYSTEM: '1' },
      },
    );
  // No sample hooks: fewer files to copy per command (the copy is most of a run's setup time).
  git('init', '-q', '--template=');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  execFileSync('tar', ['cf', 'docs.tar', 'docs'], { cwd: ws });
  execFileSync('tar', ['czf', 'docs.tgz', 'docs'], { cwd: ws });
  execFileSync('zip', ['-qr', 'docs.zip', 'docs'], { cwd: ws });
}

/** The template held in memory: one entry per directory, file (with its bytes and mode) or link. */
export type TreeSnapshot = {
  rel: string;
  kind: 'dir' | 'file' | 'link';
  data?: Buffer;
  target?: string;
  mode?: number;
}[];

/** Reads the template once; copies are written from memory (fs.cp costs ~0.5 s per copy on a loaded machine). */
export function snapshotTree(dir: string): TreeSnapshot {
  const out: TreeSnapshot = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      const p = join(dir, r);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.push({ rel: r, kind: 'link', target: readlinkSync(p) });
      else if (st.isDirectory()) {
        out.push({ rel: r, kind: 'dir' });
        walk(r);
      } else out.push({ rel: r, kind: 'file', data: readFileSync(p), mode: st.mode & 0o777 });
    }
  };
  walk('');
  return out;
}

/** A fresh copy of the template at `dir`, plus links whose absolute targets name this copy. */
export function copyTree(snapshot: TreeSnapshot, dir: string): ScratchTree {
  mkdirSync(dir, { recursive: true });
  for (const e of snapshot) {
    const p = join(dir, e.rel);
    if (e.kind === 'dir') mkdirSync(p);
    else if (e.kind === 'link') symlinkSync(e.target ?? '', p);
    else writeFileSync(p, e.data ?? '', { mode: e.mode });
  }
  const tree = { root: dir, home: join(dir, 'home'), ws: join(dir, 'ws'), outside: join(dir, 'outside') };
  symlinkSync(join(tree.outside, 'shadow'), join(tree.ws, 'abs-shadow'));
  symlinkSync(tree.outside, join(tree.ws, 'abs-out'));
  return tree;
}
