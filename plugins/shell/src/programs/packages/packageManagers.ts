import type { CommandHandler } from '../../effects/extractTypes.js';
import { has, parseArgs, values } from '../argv.js';
import { emitOptions, literal } from '../spec.js';
import { bin, install, projectDir, projectNpmrc, run } from './installAndRun.js';
import { npmConfigInputs } from './npmConfig.js';
import {
  INSTALL,
  type Manager,
  namedCommand,
  PNPM_COMMANDS,
  PNPM_SPEC,
  READ,
  RUN,
  SHORT_RUN,
  SPEC,
} from './npmOptions.js';
import { init, inPackage, pack, pkg } from './packageFiles.js';
import { readScripts, runScript } from './packageScripts.js';
import { workspacePackages } from './packageWorkspaces.js';
import { pythonPackages } from './pythonPackages.js';

// npm, pnpm, yarn and npx: the subcommand decides; option tables and command names are in npmOptions.ts,
// installs and script runs in installAndRun.ts.

const join = inPackage;

/** npm/pnpm/yarn: the project directory, then the subcommand. */
function packageManager(m: Manager, dirOpts: readonly string[]): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, { ...(m === 'pnpm' ? PNPM_SPEC : SPEC), posix: m !== 'npm' });
    emitOptions(cx, p, {
      '--userconfig': 'read',
      '--globalconfig': 'read',
      '--cache': 'write',
      '--store-dir': 'write',
    });
    if (values(p, '--script-shell', '--node-options').length > 0)
      cx.uncertain(`${cx.name}: --script-shell/--node-options sets a program it runs`);
    const dir = projectDir(cx, values(p, ...dirOpts)[0] ?? literal('.'));
    // pnpm and yarn parse POSIX-style here, so a `-g` after the subcommand is among the operands.
    const global =
      has(p, '-g', '--global') ||
      values(p, '--location').some((f) => f.value === 'global') ||
      p.operands.some((f) => f.value === '-g' || f.value === '--global' || f.value === '--location=global');
    const [sub, ...args] = m === 'npm' ? p.operands : p.operands;
    projectNpmrc(cx, dir);
    npmConfigInputs(cx);
    const ignoreScripts = cx.args.some((f) => f.value === '--ignore-scripts');
    if (sub === undefined && m !== 'yarn') return; // usage or `--version`: prints only
    const name = sub?.value ?? 'install'; // `yarn` alone installs
    if (sub?.uncertain !== undefined) {
      cx.uncertain(`${cx.name}: the subcommand is not known`);
      return;
    }
    // pnpm and yarn read `-r`/`--filter` after the subcommand too, or pass them to the script: either way
    // unknown here which, so uncertain (as the global flags above).
    if (
      m !== 'npm' &&
      args.some((f) => /^(-r|--recursive|-F|--filter(=.*)?|--workspace(s|-root)?(=.*)?|-w)$/.test(f.value))
    ) {
      cx.uncertain(`${cx.name}: a workspace option after the subcommand`);
      return;
    }
    if (
      values(p, '-w', '--workspace', '--filter', '-F').length > 0 ||
      has(p, '-r', '--recursive', '--workspaces', '-ws', '--workspace-root') ||
      (m === 'pnpm' && has(p, '-w'))
    ) {
      // A script run in workspace packages (each of them, judged); any other command there stays uncertain.
      const script = RUN.has(name)
        ? { name: args[0], args: args.slice(1) }
        : SHORT_RUN[name] !== undefined
          ? { name: literal(SHORT_RUN[name]!), args }
          : m !== 'npm' && !namedCommand(name) && !PNPM_COMMANDS.has(name)
            ? { name: sub, args }
            : undefined;
      if (script?.name === undefined || script.name.uncertain !== undefined) {
        cx.uncertain(`${cx.name} ${name}: in workspace packages, only scripts are modelled`);
        return;
      }
      const ws = workspacePackages(cx, m === 'pnpm', dir);
      if ('uncertain' in ws) {
        cx.uncertain(`${cx.name}: the workspace packages are not known (${ws.uncertain})`);
        return;
      }
      const passed = script.args[0]?.value === '--' ? script.args.slice(1) : script.args;
      for (const pkgDir of ws.dirs) {
        const s = readScripts(cx, join(pkgDir, 'package.json'));
        if ('uncertain' in s) cx.uncertain(`${cx.name} ${script.name.value}: ${s.uncertain}`);
        // A package without the script is skipped (pnpm: measured, pnpm 10 — a bare name runs as `run` does,
        // no binary fallback) or an error that runs nothing there (npm).
        else
          runScript(cx, s.scripts, script.name.value, {
            prePost: true,
            args: passed,
            via: `${cx.name} ${script.name.value} in ${pkgDir.value}`,
            dir: pkgDir,
          });
      }
      return;
    }
    // `npm link` with no package links this one into the global prefix (npm-link(1)).
    const linksGlobally = (name === 'link' || name === 'ln') && m !== 'yarn' && args.length === 0;
    if (global || linksGlobally || (m === 'yarn' && name === 'global')) {
      cx.uncertain(`${cx.name} -g writes to a global prefix outside the project`);
      return;
    }
    if (name === 'exec' || name === 'x' || name === 'dlx') {
      const call = values(p, '-c', '--call')[0];
      if (call) cx.script(call.value, `${cx.name} exec -c`);
      else if (name === 'dlx') cx.uncertain(`${cx.name} dlx downloads and runs a package`);
      else if (values(p, '--package').length > 0)
        cx.uncertain(`${cx.name} exec --package downloads and runs a package`);
      else if (args[0]) bin(cx, dir, args[0], args.slice(1));
      return;
    }
    if (INSTALL.has(name)) {
      install(cx, m, dir, args, ignoreScripts, name);
      if (name === 'install-test' || name === 'it' || name === 'install-ci-test' || name === 'cit')
        run(cx, m, dir, literal('test'), []);
      return;
    }
    if (RUN.has(name)) {
      run(cx, m, dir, args[0], args.slice(1));
      return;
    }
    if (SHORT_RUN[name] !== undefined) {
      run(cx, m, dir, literal(SHORT_RUN[name]!), args);
      return;
    }
    if (READ.has(name)) {
      if ((name === 'config' || name === 'c') && args[0] && !['get', 'list', 'ls'].includes(args[0].value)) {
        const key = args[1]?.value ?? '';
        if (
          args[1]?.uncertain !== undefined ||
          /^(script-shell|node-options|shell|git|editor|browser|viewer)/.test(key)
        )
          cx.uncertain(`${cx.name} config: ${key} sets a program it runs`);
        cx.write({ value: '~/.npmrc', raw: '~/.npmrc', glob: -1, tilde: true }, { tag: 'config' });
        return;
      }
      if (name === 'audit' && args[0]?.value === 'fix') {
        install(cx, m, dir, [], ignoreScripts);
        return;
      }
      cx.read(join(dir, 'package.json'), { tag: 'package.json' });
      if (
        [
          'ls',
          'list',
          'll',
          'la',
          'outdated',
          'explain',
          'why',
          'fund',
          'audit',
          'licenses',
          'query',
          'sbom',
        ].includes(name)
      )
        cx.read(join(dir, 'node_modules'), { scope: 'subtree', tag: 'node_modules' });
      return;
    }
    if (name === '--version' || name === '-v' || (name === 'version' && args.length === 0)) return;
    if (name === 'init') {
      init(cx, dir, args);
      return;
    }
    if (m === 'npm' && name === 'pkg') {
      pkg(cx, dir, args);
      return;
    }
    if (m !== 'yarn' && name === 'pack') {
      pack(cx, dir, p, ignoreScripts);
      return;
    }
    if (m !== 'npm') {
      // `pnpm build`, `yarn lint`: a script of that name, else a binary of node_modules/.bin.
      run(cx, m, dir, sub, args);
      return;
    }
    cx.uncertain(`npm ${name}: not a command we model`);
  };
}

/** npx PKG ARGS: a binary of the project's node_modules/.bin, or a download (uncertain); `-c` is shell code. */
const npx: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'cp',
    long: ['call', 'package', 'prefix', 'registry', 'cache'],
    posix: true,
  });
  const dir = projectDir(cx, values(p, '--prefix')[0] ?? literal('.'));
  const call = values(p, '-c', '--call')[0];
  if (call) {
    if (call.uncertain !== undefined) cx.uncertain('npx -c: the command is not known');
    else cx.script(call.value, 'npx -c');
    return;
  }
  if (values(p, '-p', '--package').length > 0) {
    cx.uncertain('npx --package downloads and runs a package');
    return;
  }
  const [name, ...args] = p.operands;
  if (name) bin(cx, dir, name, args);
};

export const packageManagers: Record<string, CommandHandler> = {
  npm: packageManager('npm', ['--prefix']),
  pnpm: packageManager('pnpm', ['-C', '--dir']),
  yarn: packageManager('yarn', ['--cwd']),
  npx,
  ...pythonPackages,
};
