import { existsSync } from 'node:fs';
import type { NetMethod } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { parseArgs, values } from '../argv.js';
import {
  environmentProxyReach,
  reachAddress,
  unknownHost,
  variableValue,
} from '../network/reach/netReach.js';
import { literal } from '../spec.js';
import { projectDir } from './installAndRun.js';
import { inPackage } from './packageFiles.js';

// Where npm, pnpm, yarn and npx connect (npm-config(7) `registry`, `@scope:registry`; npm-install(1) specs):
// the registry from `--registry`, `npm_config_registry`, the project `.npmrc`, the user's (`$NPM_CONFIG_USERCONFIG`
// or ~/.npmrc), else the default (registry.npmjs.org; yarn 1: registry.yarnpkg.com). Scoped packages use
// their scope's registry. Specs that are URLs (`git+https://…`, a tarball URL, `github:o/r`) reach their host.

/** Subcommands that talk to the registry; the ones that send something are `write`. */
const REGISTRY_READS = new Set(
  'install i in ins inst insta instal isnt isnta isntal add ci clean-install ic install-clean isntall-clean install-test it install-ci-test cit update up upgrade udpate outdated view v info show audit search s se find ping dlx exec x create init doctor fetch'.split(
    ' ',
  ),
);
const REGISTRY_WRITES = new Set(
  'publish unpublish deprecate dist-tag dist-tags access owner author login adduser add-user logout team star unstar token hook org'.split(
    ' ',
  ),
);

const DEFAULT_REGISTRY: Readonly<Record<string, string>> = {
  npm: 'https://registry.npmjs.org/',
  pnpm: 'https://registry.npmjs.org/',
  yarn: 'https://registry.yarnpkg.com/',
  npx: 'https://registry.npmjs.org/',
};

/** `key=value` lines of an npmrc (`;`/`#` comments); `${VAR}` left in (it makes a value not known). */
function npmrcEntries(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([^=;#\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) out.set(m[1]!.toLowerCase(), m[2]!.replace(/^"(.*)"$/, '$1'));
  }
  return out;
}

interface Registries {
  /** key (`registry` or `@scope:registry`) → value and where it came from, first source wins. */
  values: Map<string, { url: string; from: string }>;
  unknown?: string;
}

function npmRegistries(
  cx: CommandContext,
  dir: Field,
  cliRegistry: Field | undefined,
  yarn = false,
): Registries {
  const r: Registries = { values: new Map() };
  const set = (key: string, url: string | null, from: string) => {
    if (r.values.has(key)) return;
    if (url === null || /\$\{/.test(url)) r.unknown ??= `${key} from ${from} is not known`;
    else r.values.set(key, { url, from });
  };
  if (cliRegistry)
    set('registry', cliRegistry.uncertain === undefined ? cliRegistry.value : null, '--registry');
  for (const key of ['registry', 'proxy', 'https-proxy'])
    for (const name of [
      `npm_config_${key.replace('-', '_')}`,
      `NPM_CONFIG_${key.replace('-', '_').toUpperCase()}`,
    ]) {
      const v = variableValue(cx, name);
      if (v !== undefined) set(key, v, `$${name}`);
    }
  if (yarn) yarnRegistries(cx, dir, r, set);
  const files: Field[] = [inPackage(dir, '.npmrc')];
  const userconfig = variableValue(cx, 'npm_config_userconfig') ?? variableValue(cx, 'NPM_CONFIG_USERCONFIG');
  if (userconfig === null) r.unknown ??= 'the user npmrc is not known';
  files.push(
    userconfig !== undefined && userconfig !== null
      ? literal(userconfig)
      : { ...literal('~/.npmrc'), tilde: true },
  );
  for (const f of files) {
    if (!cx.exists(f)) continue;
    const c = cx.readContent(f, 256 * 1024);
    if ('uncertain' in c) {
      r.unknown ??= `${f.raw}: ${c.uncertain}`;
      continue;
    }
    for (const [k, v] of npmrcEntries(c.text))
      if (k === 'registry' || k === 'proxy' || k === 'https-proxy' || /^@[^:]+:registry$/.test(k))
        set(k, v, f.raw);
  }
  return r;
}

/**
 * yarn's own settings (yarnpkg.com "Configuration", classic `yarn config`): `YARN_REGISTRY`,
 * `YARN_NPM_REGISTRY_SERVER`, `.yarnrc.yml`'s `npmRegistryServer` and `.yarnrc`'s `registry "…"` (project,
 * then home); `npmScopes` and anything else naming registries that is not read here makes the reach uncertain.
 */
function yarnRegistries(
  cx: CommandContext,
  dir: Field,
  r: Registries,
  set: (key: string, url: string | null, from: string) => void,
): void {
  for (const name of ['YARN_REGISTRY', 'YARN_NPM_REGISTRY_SERVER']) {
    const v = variableValue(cx, name);
    if (v !== undefined) set('registry', v, `$${name}`);
  }
  const home = { ...literal('~'), tilde: true };
  for (const base of [dir, home])
    for (const name of ['.yarnrc.yml', '.yarnrc']) {
      const f = inPackage(base, name);
      if (!cx.exists(f)) continue;
      const c = cx.readContent(f, 256 * 1024);
      if ('uncertain' in c) {
        r.unknown ??= `${f.raw}: ${c.uncertain}`;
        continue;
      }
      const server = /^\s*(?:npmRegistryServer:|registry)\s*["']?([^"'\s]+)["']?\s*$/m.exec(c.text)?.[1];
      if (server !== undefined) set('registry', server, f.raw);
      if (/npmScopes|npmPublishRegistry|@[^:\s]+:registry/.test(c.text))
        r.unknown ??= `${f.raw} names scoped registries`;
    }
}

/** The host a package spec names itself (npm-install(1)): a URL, `git+…`, `github:`, `user/repo`. */
function specUrl(spec: string): string | undefined {
  if (/^(git\+)?(https?|ssh|git):\/\//.test(spec)) return spec.replace(/^git\+/, '');
  if (/^git@/.test(spec)) return `ssh://${spec.replace(':', '/')}`;
  if (/^(github:)?[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+(#.*)?$/.test(spec) && !spec.startsWith('@'))
    return 'https://github.com/';
  if (/^gitlab:/.test(spec)) return 'https://gitlab.com/';
  if (/^bitbucket:/.test(spec)) return 'https://bitbucket.org/';
  const alias = /^[^@]+@npm:(.*)$/.exec(spec);
  return alias ? undefined : /@(https?:\/\/.*)$/.exec(spec)?.[1];
}

function npmReach(m: 'npm' | 'pnpm' | 'yarn'): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, {
      short: 'C',
      long: ['registry', 'prefix', 'dir', 'cwd', 'userconfig'],
      posix: m !== 'npm',
    });
    const words = p.operands.filter((f) => f.uncertain !== undefined || !f.value.startsWith('-'));
    const sub = words[0]?.value ?? (m === 'yarn' ? 'install' : undefined);
    if (sub === undefined) return;
    if (words[0]?.uncertain !== undefined) {
      unknownHost(cx, words[0].raw, { method: 'write' }, `${cx.name}: the subcommand is not known`);
      return;
    }
    const method: NetMethod | undefined = REGISTRY_WRITES.has(sub)
      ? 'write'
      : REGISTRY_READS.has(sub)
        ? 'read'
        : undefined;
    if (method === undefined) return;
    const dir = projectDir(cx, values(p, '--prefix', '-C', '--dir', '--cwd')[0] ?? literal('.'));
    const reg = npmRegistries(cx, dir, values(p, '--registry').at(-1), m === 'yarn');
    const specs = words.slice(1);
    registryReach(cx, m, reg, specs, method, dir, sub);
  };
}

function registryReach(
  cx: CommandContext,
  m: string,
  reg: Registries,
  specs: readonly Field[],
  method: NetMethod,
  dir: Field,
  sub: string,
): void {
  if (reg.unknown !== undefined) {
    unknownHost(cx, 'registry', { method }, `${cx.name}: ${reg.unknown}`);
    return;
  }
  const main = reg.values.get('registry');
  const report = (key: string) => {
    const v = reg.values.get(key) ?? main;
    const url = v?.url ?? DEFAULT_REGISTRY[m]!;
    reachAddress(cx, url, {
      method,
      ...(v !== undefined ? { reason: `${key} from ${v.from}` } : {}),
      ...(v !== undefined && v.from !== '--registry' && !v.from.startsWith('$')
        ? { origin: `${cx.name}:npmrc` }
        : {}),
    });
    // npm-config(7) `https-proxy`/`proxy` (npmrc, npm_config_*), else HTTPS_PROXY/HTTP_PROXY in either case.
    const proxy = reg.values.get(/^https:/i.test(url) ? 'https-proxy' : 'proxy') ?? reg.values.get('proxy');
    if (proxy !== undefined)
      reachAddress(cx, proxy.url, {
        method,
        scheme: 'http',
        origin: `${cx.name}:proxy`,
        reason: `${cx.name} sends ${url} through the proxy of ${proxy.from}`,
      });
    else environmentProxyReach(cx, url, method, 'both', `${cx.name}:proxy`);
  };
  report('registry');
  for (const s of specs) {
    if (s.uncertain !== undefined) {
      unknownHost(cx, s.raw, { method }, `${cx.name}: a package spec is not known`);
      continue;
    }
    if (/^(\.{0,2}\/|~|file:)/.test(s.value)) continue;
    const url = specUrl(s.value);
    if (url !== undefined) reachAddress(cx, url, { method: 'read', origin: `${cx.name}:spec` });
    const scope = /^(@[^/]+)\//.exec(s.value)?.[1];
    if (scope !== undefined && reg.values.has(`${scope}:registry`)) report(`${scope}:registry`);
  }
  // Every scope a project's npmrc routes elsewhere may be installed from its dependencies.
  if (
    specs.length === 0 &&
    (sub === 'install' || sub === 'i' || sub === 'ci' || sub === 'add' || sub === 'update')
  )
    for (const key of reg.values.keys()) if (/^@/.test(key)) report(key);
  if (specs.length === 0) dependencySpecs(cx, dir, method);
}

/** Dependencies of package.json given as URLs (git, tarballs) reach their own hosts. */
function dependencySpecs(cx: CommandContext, dir: Field, method: NetMethod): void {
  const c = cx.readContent(inPackage(dir, 'package.json'), 1024 * 1024);
  if ('uncertain' in c) return;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(c.text) as Record<string, unknown>;
  } catch {
    return;
  }
  for (const k of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const deps = json[k];
    if (!deps || typeof deps !== 'object') continue;
    for (const v of Object.values(deps as Record<string, unknown>)) {
      if (typeof v !== 'string' || /^(file:|link:|workspace:|\.|\/)/.test(v)) continue;
      const url = specUrl(v);
      if (url !== undefined) reachAddress(cx, url, { method, origin: `${cx.name}:package.json` });
    }
  }
}

/** npx NAME: a binary of node_modules/.bin runs locally; anything else is downloaded from the registry. */
const npx: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'cp',
    long: ['call', 'package', 'prefix', 'registry', 'cache'],
    posix: true,
  });
  const dir = projectDir(cx, values(p, '--prefix')[0] ?? literal('.'));
  const name = p.operands[0];
  const pkgs = values(p, '-p', '--package');
  if (pkgs.length === 0 && (name === undefined || values(p, '-c', '--call').length > 0)) return;
  if (
    pkgs.length === 0 &&
    name &&
    name.uncertain === undefined &&
    existsSync(`${cx.resolveDir(dir) ?? '/nonexistent'}/node_modules/.bin/${name.value}`)
  )
    return;
  const reg = npmRegistries(cx, dir, values(p, '--registry').at(-1));
  registryReach(cx, 'npx', reg, [...pkgs, ...(pkgs.length === 0 && name ? [name] : [])], 'read', dir, 'exec');
};

export const npmRegistryReach: Record<string, CommandHandler> = {
  npm: npmReach('npm'),
  pnpm: npmReach('pnpm'),
  yarn: npmReach('yarn'),
  npx,
};
