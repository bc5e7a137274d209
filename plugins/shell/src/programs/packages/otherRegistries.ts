import { readdirSync } from 'node:fs';
import type { NetMethod } from '@toolgate/core';
import type { CommandHandler } from '../../effects/extractTypes.js';
import {
  environmentProxyReach,
  reachAddress,
  unknownHost,
  variableValue,
} from '../network/reach/netReach.js';
import { literal } from '../spec.js';

// cargo, go, gem, apt-get/apt and docker: where each goes by its documentation, or an uncertain reach with the
// reason when a configuration we do not read may send it elsewhere.

const CARGO_NET = new Set(
  'build b check c test t run r bench doc fetch update install add tree vendor generate-lockfile search'.split(
    ' ',
  ),
);
const CARGO_WRITE = new Set(['publish', 'yank', 'owner', 'login']);

/**
 * cargo (doc.rust-lang.org/cargo "Registries", "Source Replacement"): crates.io's sparse index
 * (index.crates.io) and downloads (static.crates.io), unless a `.cargo/config.toml` above the cwd or in
 * `$CARGO_HOME` names registries or replaces sources, `CARGO_REGISTRIES_*` does, or Cargo.toml has git deps.
 */
const cargo: CommandHandler = (cx) => {
  const sub = cx.args.find((f) => !f.value.startsWith('-') && !f.value.startsWith('+'));
  if (!sub || sub.uncertain !== undefined) return;
  const method: NetMethod | undefined = CARGO_WRITE.has(sub.value)
    ? 'write'
    : CARGO_NET.has(sub.value)
      ? 'read'
      : undefined;
  if (method === undefined || cx.args.some((f) => f.value === '--offline' || f.value === '--frozen')) return;
  const home = variableValue(cx, 'HOME');
  const cargoHome =
    variableValue(cx, 'CARGO_HOME') ?? (typeof home === 'string' ? `${home}/.cargo` : undefined);
  const cwd = cx.resolveDir(literal('.'));
  const configs: string[] = [];
  for (let d = cwd; d; d = d === '/' ? null : d.replace(/\/[^/]*$/, '') || '/')
    configs.push(`${d === '/' ? '' : d}/.cargo/config.toml`, `${d === '/' ? '' : d}/.cargo/config`);
  if (cargoHome) configs.push(`${cargoHome}/config.toml`, `${cargoHome}/config`);
  const custom = (text: string) =>
    /\[(source|registries|registry)\b|\bgit\s*=|\breplace-with\b|\bproxy\s*=/.test(text);
  for (const f of [...configs, ...(cwd ? [`${cwd}/Cargo.toml`] : [])]) {
    const c = cx.readContent(literal(f), 1024 * 1024);
    if ('text' in c && custom(c.text)) {
      unknownHost(cx, f, { method }, `cargo: ${f} names registries, sources or git dependencies`);
      return;
    }
  }
  if (cwd === null || cargoHome === null) {
    unknownHost(cx, 'crates.io', { method }, 'cargo: its configuration is not known');
    return;
  }
  reachAddress(cx, 'https://index.crates.io/', { method });
  reachAddress(cx, 'https://static.crates.io/', { method: 'read' });
  if (method === 'write') reachAddress(cx, 'https://crates.io/', { method });
  // cargo uses libcurl: its proxy variables (cargo's own `http.proxy` makes the config custom above).
  environmentProxyReach(cx, 'https://index.crates.io/', method, 'curl', 'cargo:proxy');
};

/**
 * go (go help goproxy, go help module-private): each `GOPROXY` entry (default proxy.golang.org, then
 * `direct`), sum.golang.org (`GOSUMDB`), and for a module named on the command line that `GOPRIVATE`/
 * `GONOPROXY` match or that `direct` may fetch, the module path's host. Dependencies fetched `direct` that are
 * not on the command line are a limit (README).
 */
const GO_NET = new Set(['get', 'install', 'build', 'test', 'run', 'mod', 'list', 'generate', 'vet']);
const go: CommandHandler = (cx) => {
  const [sub, ...rest] = cx.args;
  if (!sub || sub.uncertain !== undefined || !GO_NET.has(sub.value)) return;
  if (sub.value === 'mod' && !['download', 'tidy', 'why', 'graph', 'verify'].includes(rest[0]?.value ?? ''))
    return;
  const flags = variableValue(cx, 'GOFLAGS');
  if (
    flags === null ||
    (typeof flags === 'string' && /-mod=vendor/.test(flags)) ||
    rest.some((f) => f.value === '-mod=vendor')
  )
    return;
  const proxy = variableValue(cx, 'GOPROXY');
  const priv = variableValue(cx, 'GOPRIVATE') ?? variableValue(cx, 'GONOPROXY');
  const sumdb = variableValue(cx, 'GOSUMDB');
  if (proxy === null || priv === null || sumdb === null) {
    unknownHost(cx, 'GOPROXY', { method: 'read' }, 'go: GOPROXY/GOPRIVATE/GOSUMDB is not known');
    return;
  }
  const list = (proxy ?? 'https://proxy.golang.org,direct').split(/[,|]/).map((s) => s.trim());
  if (list.includes('off')) return;
  let direct = false;
  for (const e of list) {
    if (e === 'direct') direct = true;
    else if (e !== '') {
      reachAddress(cx, e, { method: 'read', scheme: 'https', reason: 'GOPROXY' });
      // Go's net/http: HTTPS_PROXY/HTTP_PROXY in either case.
      environmentProxyReach(cx, /^[a-z]+:\/\//i.test(e) ? e : `https://${e}`, 'read', 'both', 'go:proxy');
    }
  }
  if (sumdb !== 'off')
    reachAddress(
      cx,
      (sumdb ?? 'sum.golang.org')
        .split(/\s+/)
        .pop()!
        .replace(/^(?!https?:)/, 'https://'),
      { method: 'read', reason: 'GOSUMDB' },
    );
  for (const f of rest) {
    if (f.value.startsWith('-') || f.uncertain !== undefined || !/^[a-z0-9.-]+\.[a-z]{2,}\//i.test(f.value))
      continue;
    const host = f.value.split('/')[0]!;
    const isPrivate = (priv ?? '').split(',').some(
      (pat) =>
        pat !== '' &&
        new RegExp(
          `^${pat
            .replace(/[.+^$()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]')}(/|$)`,
        ).test(f.value),
    );
    if (isPrivate || direct)
      reachAddress(cx, `https://${host}/`, {
        method: 'read',
        reason: isPrivate ? 'GOPRIVATE: fetched directly' : 'GOPROXY direct fallback',
      });
  }
};

/** gem (guides.rubygems.org): rubygems.org, or `--source`/`--clear-sources`, or `:sources:` of ~/.gemrc. */
const GEM_NET = new Set([
  'install',
  'i',
  'update',
  'fetch',
  'search',
  'outdated',
  'list',
  'info',
  'query',
  'specification',
  'dependency',
]);
const gem: CommandHandler = (cx) => {
  const sub = cx.args[0];
  if (!sub || sub.uncertain !== undefined) return;
  const write = ['push', 'yank', 'owner', 'signin'].includes(sub.value);
  if (!write && !GEM_NET.has(sub.value)) return;
  if (
    ['list', 'info', 'query', 'specification', 'dependency', 'search'].includes(sub.value) &&
    !cx.args.some((f) => f.value === '--remote' || f.value === '-r') &&
    sub.value !== 'search'
  )
    return;
  const method: NetMethod = write ? 'write' : 'read';
  const sources = cx.args.flatMap((f, k) =>
    (f.value === '--source' || f.value === '-s') && cx.args[k + 1] ? [cx.args[k + 1]!] : [],
  );
  if (sources.length > 0) for (const s of sources) reachAddress(cx, s, { method });
  const rc = cx.readContent({ ...literal('~/.gemrc'), tilde: true }, 64 * 1024);
  if ('text' in rc && /sources/.test(rc.text)) {
    unknownHost(cx, '~/.gemrc', { method }, 'gem: ~/.gemrc names its sources');
    return;
  }
  if (!cx.args.some((f) => f.value === '--clear-sources'))
    reachAddress(cx, 'https://rubygems.org/', { method });
};

/** apt-get/apt: the mirrors of /etc/apt/sources.list and sources.list.d (one-line and deb822 formats). */
const APT_NET = new Set([
  'update',
  'install',
  'upgrade',
  'dist-upgrade',
  'full-upgrade',
  'source',
  'download',
  'build-dep',
  'reinstall',
]);
const apt: CommandHandler = (cx) => {
  const sub = cx.args.find((f) => !f.value.startsWith('-'));
  if (!sub || sub.uncertain !== undefined || !APT_NET.has(sub.value)) return;
  const files = ['/etc/apt/sources.list'];
  try {
    for (const n of readdirSync('/etc/apt/sources.list.d'))
      if (/\.(list|sources)$/.test(n)) files.push(`/etc/apt/sources.list.d/${n}`);
  } catch {}
  let any = false;
  for (const f of files) {
    const c = cx.readContent(literal(f), 256 * 1024);
    if (!('text' in c)) continue;
    for (const line of c.text.split('\n')) {
      const one = /^\s*deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?(\S+)/.exec(line)?.[1];
      const uris = /^\s*URIs:\s*(.*)$/i.exec(line)?.[1]?.split(/\s+/) ?? [];
      for (const u of [...(one ? [one] : []), ...uris]) {
        if (!/^(https?|ftp):\/\//.test(u)) continue;
        any = true;
        reachAddress(cx, u, { method: 'read', origin: `${cx.name}:sources.list` });
      }
    }
  }
  if (!any) unknownHost(cx, 'sources.list', { method: 'read' }, `${cx.name}: its mirrors are not known`);
};

/**
 * docker pull/push/run/create/login (docs.docker.com "image references"): the registry of the image name —
 * its first component when it has a `.` or `:` or is `localhost`, else Docker Hub (registry-1.docker.io,
 * auth.docker.io). Daemon mirrors and proxies are the daemon's (README, limits). `build` reads FROM lines: not modelled.
 */
const docker: CommandHandler = (cx) => {
  const words = cx.args.filter((f) => !f.value.startsWith('-'));
  const sub = words[0];
  if (!sub || sub.uncertain !== undefined) return;
  if (
    sub.value === 'build' ||
    sub.value === 'buildx' ||
    (sub.value === 'compose' && ['pull', 'up', 'build', 'push'].includes(words[1]?.value ?? ''))
  ) {
    unknownHost(
      cx,
      sub.value,
      { method: 'read' },
      `docker ${sub.value}: the images come from files not modelled`,
    );
    return;
  }
  const method: NetMethod = sub.value === 'push' || sub.value === 'login' ? 'write' : 'read';
  if (sub.value === 'login') {
    const server = words[1];
    reachAddress(cx, server ?? 'registry-1.docker.io', { method, scheme: 'https' });
    return;
  }
  if (!['pull', 'push', 'run', 'create'].includes(sub.value)) return;
  // run/create: the first operand after options is the image (options with values are a limit here).
  const image = words[1];
  if (!image) return;
  if (image.uncertain !== undefined) {
    unknownHost(cx, image.raw, { method }, 'docker: the image is not known');
    return;
  }
  const first = image.value.split('/')[0]!;
  const registry =
    image.value.includes('/') && (/[.:]/.test(first) || first === 'localhost') ? first : undefined;
  if (registry !== undefined) reachAddress(cx, registry, { method, scheme: 'https' });
  else {
    reachAddress(cx, 'registry-1.docker.io', { method, scheme: 'https' });
    reachAddress(cx, 'auth.docker.io', { method: 'read', scheme: 'https' });
  }
};

/**
 * System package managers whose mirrors come from their repository configuration (yum/dnf .repo files,
 * zypper, apk's repositories, pacman's mirrorlist, snap, flatpak remotes), not read here: the operations
 * that download are an uncertain reach. Homebrew (docs.brew.sh "Installation", "Manpage"): formulae.brew.sh
 * (the API) and ghcr.io (bottles) unless `HOMEBREW_API_DOMAIN`/`HOMEBREW_BOTTLE_DOMAIN` name others.
 */
const MIRRORED_NET =
  /^(install|reinstall|update|upgrade|dist-upgrade|distro-sync|makecache|download|search|info|add|fix|-S\w*|-Sy\w*|-Syu\w*|refresh|remote-add|fetch)$/;

function mirrored(cx: Parameters<CommandHandler>[0]): void {
  const sub = cx.args.find(
    (f) => f.uncertain !== undefined || !f.value.startsWith('-') || /^-S/.test(f.value),
  );
  if (!sub) return;
  if (sub.uncertain === undefined && !MIRRORED_NET.test(sub.value)) return;
  unknownHost(
    cx,
    sub.raw,
    { method: 'read' },
    `${cx.name} downloads from mirrors its repository configuration names`,
  );
}

const brew: CommandHandler = (cx) => {
  const sub = cx.args.find((f) => !f.value.startsWith('-'));
  if (
    !sub ||
    sub.uncertain !== undefined ||
    !/^(install|reinstall|upgrade|update|fetch|search|info|tap|bundle)$/.test(sub.value)
  )
    return;
  const api = variableValue(cx, 'HOMEBREW_API_DOMAIN');
  const bottles = variableValue(cx, 'HOMEBREW_BOTTLE_DOMAIN');
  if (api === null || bottles === null) {
    unknownHost(cx, 'brew', { method: 'read' }, 'brew: HOMEBREW_*_DOMAIN is not known');
    return;
  }
  reachAddress(cx, api ?? 'https://formulae.brew.sh/api', { method: 'read' });
  reachAddress(cx, bottles ?? 'https://ghcr.io/v2/homebrew/core', { method: 'read' });
  if (sub.value === 'update' || sub.value === 'tap')
    reachAddress(cx, 'https://github.com/', {
      method: 'read',
      reason: 'brew update/tap fetch taps from GitHub',
    });
};

export const otherRegistries: Record<string, CommandHandler> = {
  brew,
  ...Object.fromEntries(
    ['yum', 'dnf', 'microdnf', 'zypper', 'apk', 'pacman', 'snap', 'flatpak'].map((n) => [n, mirrored]),
  ),
  cargo,
  go,
  gem,
  'apt-get': apt,
  apt,
  docker,
  podman: docker,
};
