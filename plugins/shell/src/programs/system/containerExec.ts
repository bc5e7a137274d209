import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, parseArgs } from '../argv.js';
import { variableValue } from '../network/reach/netReach.js';
import { literal, unknownOptions } from '../spec.js';

// `docker exec --help` (Docker 24+): the complete option table of `exec`.
const DOCKER_EXEC: ArgSpec = {
  short: 'euw',
  shortFlags: 'dit',
  long: ['detach-keys', 'env', 'env-file', 'user', 'workdir'],
  flags: ['detach', 'interactive', 'privileged', 'tty'],
  posix: true,
};
// `kubectl exec --help` (1.2x): its own options; global flags that name files are read.
const KUBECTL_EXEC: ArgSpec = {
  short: 'cfn',
  shortFlags: 'iqt',
  long: [
    'container',
    'filename',
    'namespace',
    'pod-running-timeout',
    'kubeconfig',
    'context',
    'cluster',
    'user',
    'server',
    'token',
    'certificate-authority',
    'client-certificate',
    'client-key',
    'request-timeout',
    'as',
    'as-group',
  ],
  flags: ['stdin', 'tty', 'quiet', 'insecure-skip-tls-verify'],
};

const KUBE_FILES = [
  '-f',
  '--filename',
  '--kubeconfig',
  '--certificate-authority',
  '--client-certificate',
  '--client-key',
];

/**
 * `docker exec CONTAINER CMD…` runs CMD inside the container: its paths are the container's, not this
 * machine's (issue 12: `kubectl exec pod -- ls /` is not a read of `/`). Only `--env-file` is local. Any
 * other docker subcommand is an unknown command's (`docker run -v /:/host` mounts a host path).
 */
const docker: CommandHandler = (cx) => {
  const [sub, ...rest] = cx.args;
  if (sub?.value === 'compose' && sub.uncertain === undefined) {
    compose(cx, rest);
    return;
  }
  if (sub?.value !== 'exec' || sub.uncertain !== undefined) {
    buildContext(cx, cx.args);
    const own = runOwnArgs(cx, cx.args);
    // run/create: the options are judged (mounts, host flags, files); their other values and the image's
    // command are the container's. Any other subcommand: the unknown-command rule, mounts taken out.
    if (own !== undefined) hostReach(cx, own);
    else cx.unknownOperands(hostReach(cx, cx.args));
    return;
  }
  const p = parseArgs(rest, DOCKER_EXEC);
  unknownOptions(cx, p);
  for (const o of p.opts) if (o.name === '--env-file' && o.value) cx.read(o.value, { tag: 'env-file' });
  if (p.operands.length < 2) cx.uncertain('docker exec without a container and command');
};

// `docker run --help` (Docker 24+): the options that take a value (the word after, unless `--opt=value`).
const RUN_VALUE_SHORT = new Set(['-a', '-c', '-e', '-h', '-l', '-m', '-p', '-u', '-v', '-w']);
const RUN_VALUE_LONG = new Set(
  (
    'add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop cgroup-parent cgroupns cidfile ' +
    'cpu-count cpu-percent cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpu-shares cpus cpuset-cpus ' +
    'cpuset-mems detach-keys device device-cgroup-rule device-read-bps device-read-iops device-write-bps ' +
    'device-write-iops dns dns-option dns-search domainname entrypoint env env-file expose gpus group-add ' +
    'health-cmd health-interval health-retries health-start-interval health-start-period health-timeout hostname ' +
    'ip ip6 ipc isolation kernel-memory label label-file link link-local-ip log-driver log-opt mac-address memory ' +
    'memory-reservation memory-swap memory-swappiness mount name network net network-alias oom-score-adj pid ' +
    'pids-limit platform publish pull restart runtime security-opt shm-size stop-signal stop-timeout storage-opt ' +
    'sysctl tmpfs ulimit user userns uts volume volume-driver volumes-from workdir'
  )
    .split(' ')
    .map((o) => `--${o}`),
);

/**
 * `docker run|create [OPTIONS] IMAGE [COMMAND…]` (also `container run|create`): the options are this
 * machine's business; the image's command runs inside the container, its paths are the container's — not
 * judged here (as for `docker exec`). `--env-file`/`--label-file` are read here, `--cidfile` written. The
 * options are returned for `hostReach`; undefined for any other subcommand.
 */
function runOwnArgs(cx: CommandContext, args: readonly Field[]): readonly Field[] | undefined {
  let k = args[0]?.value === 'container' ? 1 : 0;
  if (!['run', 'create'].includes(args[k]?.value ?? '') || args[k]!.uncertain !== undefined) return undefined;
  k++;
  const own = args.slice(0, k);
  for (; k < args.length; k++) {
    const f = args[k]!;
    if (f.uncertain !== undefined || !f.value.startsWith('-') || f.value === '-') break; // the image
    own.push(f);
    if (f.value === '--') {
      k++;
      break;
    }
    const eq = f.value.indexOf('=');
    const name = eq < 0 ? f.value : f.value.slice(0, eq);
    let value: Field | undefined;
    if (eq >= 0) value = { ...f, value: f.value.slice(eq + 1), raw: f.value.slice(eq + 1) };
    else if (RUN_VALUE_LONG.has(name) || RUN_VALUE_SHORT.has(name)) {
      value = args[++k];
      if (value) own.push(value);
    }
    if (value === undefined) continue;
    if (name === '--env-file' || name === '--label-file') cx.read(value, { tag: name.slice(2) });
    else if (name === '--cidfile') cx.write(value, { tag: 'cidfile' });
  }
  // The image (a name, never a path of this machine) and the command the container runs are not ours.
  return own.filter((f) => !['--env-file', '--label-file', '--cidfile'].includes(f.value));
}

/** Flags that hand a container the host itself (root on this machine, through the daemon). */
const HOST_FLAGS =
  /^--(?:privileged|cap-add|device|device-cgroup-rule|security-opt|volumes-from|host)(?:=|$)|^-H$|^--(?:pid|ipc|uts|userns|cgroupns|network|net)=host$/;
const HOST_NAMESPACE = new Set(['--pid', '--ipc', '--uts', '--userns', '--cgroupns', '--network', '--net']);

/**
 * What a container is given of this machine (docker-run(1) `-v`, `--mount`, `--privileged`…): the daemon is
 * root, so a bind mount is the container's access to that host path — a read of the subtree (`:ro`,
 * `readonly`), else a write of it, and code nobody analysed acting on it (uncertain); a flag that hands it
 * the host (privileged, a host namespace, devices, capabilities, another container's volumes, another
 * daemon) is uncertain. Returns the arguments left for the unknown-command rule (mount specs taken out).
 */
function hostReach(cx: CommandContext, args: readonly Field[]): readonly Field[] {
  const rest: Field[] = [];
  for (let k = 0; k < args.length; k++) {
    const f = args[k]!;
    const v = f.value;
    if (
      f.uncertain === undefined &&
      (HOST_FLAGS.test(v) || (HOST_NAMESPACE.has(v) && args[k + 1]?.value === 'host'))
    ) {
      cx.uncertain(`docker ${v}${HOST_NAMESPACE.has(v) ? ' host' : ''} hands the container this machine`);
      rest.push(f);
      continue;
    }
    const m = /^(-v|--volume|--mount)(?:=(.*))?$/.exec(v) ?? /^(-v)(.+)$/.exec(v);
    if (!m || f.uncertain !== undefined) {
      rest.push(f);
      continue;
    }
    let spec: Field | undefined;
    if (m[2] !== undefined) spec = { ...f, value: m[2], raw: m[2] };
    else {
      spec = args[k + 1];
      k++;
    }
    if (spec === undefined) continue;
    mount(cx, spec, m[1] === '--mount');
  }
  return rest;
}

function mount(cx: CommandContext, spec: Field, long: boolean): void {
  if (spec.uncertain !== undefined) {
    cx.uncertain(`docker: the mount ${spec.raw} is not known`);
    return;
  }
  let src: string | undefined;
  let ro = false;
  if (long) {
    const kv = new Map(
      spec.value.split(',').map((p) => {
        const eq = p.indexOf('=');
        return [eq < 0 ? p : p.slice(0, eq), eq < 0 ? 'true' : p.slice(eq + 1)] as const;
      }),
    );
    if ((kv.get('type') ?? 'volume') !== 'bind') return; // a named volume or a tmpfs: nothing of this machine
    src = kv.get('source') ?? kv.get('src');
    ro = ['true', '1'].includes(kv.get('readonly') ?? kv.get('ro') ?? 'false');
  } else {
    const parts = spec.value.split(':');
    if (parts.length < 2) return; // `-v /data`: an anonymous volume
    src = parts[0];
    ro = (parts[2] ?? '').split(',').includes('ro');
  }
  if (src === undefined || src === '') {
    cx.uncertain(`docker: the mount ${spec.raw} names no source`);
    return;
  }
  // A name without a slash is a named volume (docker keeps it), not a path of this machine.
  if (!/^[/.~]/.test(src)) return;
  const at: Field = { ...spec, value: src, raw: src, tilde: src.startsWith('~') };
  if (ro) cx.read(at, { scope: 'subtree', tag: 'mount' });
  else {
    cx.write(at, { scope: 'subtree', tag: 'mount' });
    cx.uncertain(`docker: code in the container writes ${src}, mounted read-write`);
  }
}

/** `kubectl exec POD [-c C] -- CMD…` runs CMD in the pod; kubeconfig and certificate files are local reads. */
const kubectl: CommandHandler = (cx) => {
  const k = cx.args.findIndex((f) => f.value === 'exec');
  const before = cx.args.slice(0, Math.max(k, 0));
  // Global flags may come first (`kubectl -n ns exec …`): what precedes `exec` must be options only.
  if (
    k === -1 ||
    parseArgs(before, KUBECTL_EXEC).operands.length > 0 ||
    cx.args[k]!.uncertain !== undefined
  ) {
    cx.unknownOperands(cx.args);
    return;
  }
  const dash = cx.args.indexOf(cx.args.find((f, i) => i > k && f.value === '--')!);
  const own = [...before, ...cx.args.slice(k + 1, dash === -1 ? undefined : dash)];
  const p = parseArgs(own, KUBECTL_EXEC);
  unknownOptions(cx, p);
  for (const o of p.opts)
    if (KUBE_FILES.includes(o.name) && o.value) cx.read(o.value, { tag: o.name.replace(/^-+/, '') });
  // Without `--`, kubectl's deprecated form `exec POD CMD` still runs CMD in the pod.
  if (p.operands.length === 0) cx.uncertain('kubectl exec without a pod');
};

/**
 * `docker build [OPTS] CONTEXT` (also `buildx build`, `image build`) sends the whole context directory to
 * the daemon: a read of that subtree (a `.dockerignore` is not read here, so every entry is judged).
 */
function buildContext(cx: CommandContext, args: readonly Field[]): void {
  const words = args.map((f) => f.value);
  const at = words.findIndex(
    (w, k) => w === 'build' && (k === 0 || ['buildx', 'image', 'builder'].includes(words[k - 1]!)),
  );
  if (at === -1) return;
  const operands = args.slice(at + 1).filter((f, k, all) => {
    if (f.uncertain !== undefined) return true;
    if (f.value.startsWith('-')) return false;
    // The value of an option written apart (`-t name`, `-f Dockerfile`).
    const prev = all[k - 1]?.value ?? '';
    return !(/^-[a-zA-Z]$/.test(prev) || /^--[a-z-]+$/.test(prev)) || BUILD_FLAGS.has(prev);
  });
  const context = operands[operands.length - 1];
  if (context && !/^[a-z]+:\/\//.test(context.value) && context.value !== '-')
    cx.read(context, { scope: 'subtree', tag: 'build-context' });
}

/** docker build flags that take no value (so the next word may be the context). */
const BUILD_FLAGS = new Set([
  '--no-cache',
  '--pull',
  '-q',
  '--quiet',
  '--rm',
  '--force-rm',
  '--load',
  '--push',
  '--compress',
]);

/**
 * `docker compose …` / `docker-compose …` read the compose files and, for variable substitution, the
 * project directory's `.env` (compose documentation, "Set environment variables: .env file"); commands that
 * may build (`up`, `build`, `run`, `create`) send build contexts named inside the compose file: the project
 * directory is read as a subtree. Everything else stays an unknown command's operands.
 */
/** The files `docker compose` reads when none is named (compose-spec: the first two; the override file too). */
const COMPOSE_FILES = [
  'compose.yaml',
  'compose.yml',
  'docker-compose.yaml',
  'docker-compose.yml',
  'compose.override.yaml',
  'compose.override.yml',
  'docker-compose.override.yaml',
  'docker-compose.override.yml',
];

/**
 * Keys of the compose specification that hand a container this machine (`privileged`, host namespaces,
 * devices, capabilities, other containers' volumes, other files merged in), and the bind-mount forms
 * (`- ./src:/app`, `- /:/host`, `type: bind`, `source: /…`). Read as text, not parsed: a match is never
 * proof of safety, only a reason to be uncertain — so any spelling of them counts.
 */
const COMPOSE_HOST = new RegExp(
  [
    // a key, in block or flow style, quoted or not (JSON is YAML too)
    /(?:^|[\s{,"'])(?:privileged|pid|ipc|uts|userns_mode|cgroup|network_mode|devices|device_cgroup_rules|cap_add|security_opt|volumes_from|extends|include|sysctls)["']?\s*:/
      .source,
    // a short-form bind mount: a list item that starts with a path and a colon (`- ./src:/app`, `["/:/h"]`)
    /(?:^\s*-|[[,])\s*["']?(?:[/.~$]|[A-Za-z]:\\)[^:"'\s,\]]*:/.source,
    // the long form
    /type["']?\s*:\s*["']?bind|source["']?\s*:\s*["']?[/.~$]/.source,
  ].join('|'),
  'm',
);

/** Whether COMPOSE_FILE may be set: in the environment (or not known), or in the project's `.env`. */
function composeFileVariable(cx: CommandContext, dotEnv: Field): boolean {
  if (variableValue(cx, 'COMPOSE_FILE') !== undefined) return true;
  if (!cx.exists(dotEnv)) return false;
  const r = cx.readContent(dotEnv, 256 * 1024);
  return 'uncertain' in r || /^\s*(?:export\s+)?COMPOSE_FILE\s*=/m.test(r.text);
}

function composeHandsHost(cx: CommandContext, files: readonly Field[]): void {
  for (const f of files) {
    const r = cx.readContent(f, 1024 * 1024);
    if ('uncertain' in r) {
      cx.uncertain(`docker compose: ${f.raw} cannot be read: ${r.uncertain}`);
      return;
    }
    const m = COMPOSE_HOST.exec(r.text);
    if (m) {
      cx.uncertain(`docker compose: ${f.raw} hands a container this machine (${m[0].trim()})`);
      return;
    }
  }
}

function compose(cx: CommandContext, args: readonly Field[]): void {
  const project = args.find((_f, k) => args[k - 1]?.value === '--project-directory') ?? literal('.');
  const files = args.filter((_f, k) => ['-f', '--file'].includes(args[k - 1]?.value ?? ''));
  const envFiles = args.filter((_f, k) => args[k - 1]?.value === '--env-file');
  const join = (f: Field, name: string): Field => ({ ...f, value: `${f.value.replace(/\/+$/, '')}/${name}` });
  if (envFiles.length > 0) for (const f of envFiles) cx.read(f, { tag: 'env-file' });
  // The default `.env` is read only when it exists (a named --env-file is read, or fails, regardless).
  else if (cx.exists(join(project, '.env'))) cx.read(join(project, '.env'), { tag: 'env-file' });
  for (const f of files) cx.read(f, { tag: 'compose-file' });
  if (args.some((f) => f.uncertain !== undefined)) cx.uncertain('docker compose: an argument is not known');
  if (args.some((f) => ['up', 'build', 'run', 'create'].includes(f.value)))
    cx.read(project, { scope: 'subtree', tag: 'build-context' });
  // What the containers are handed is written in the compose files — configuration the agent may have
  // written (prove or sandbox): bind mounts and host-reaching keys make the run uncertain.
  if (args.some((f) => ['up', 'run', 'create', 'start', 'restart'].includes(f.value))) {
    // Without -f, COMPOSE_FILE names the files — from the environment or the project's .env.
    if (files.length === 0 && composeFileVariable(cx, join(project, '.env'))) {
      cx.uncertain('docker compose: COMPOSE_FILE names compose files that are not read here');
      return;
    }
    composeHandsHost(
      cx,
      files.length > 0 ? files : COMPOSE_FILES.map((name) => join(project, name)).filter((f) => cx.exists(f)),
    );
  }
  cx.unknownOperands(args.filter((f) => !files.includes(f) && !envFiles.includes(f) && f !== project));
}

const dockerCompose: CommandHandler = (cx) => compose(cx, cx.args);

export const containerExec: Record<string, CommandHandler> = {
  docker,
  kubectl,
  'docker-compose': dockerCompose,
};
