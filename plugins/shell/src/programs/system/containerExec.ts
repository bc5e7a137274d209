import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, parseArgs } from '../argv.js';
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
    cx.unknownOperands(cx.args);
    return;
  }
  const p = parseArgs(rest, DOCKER_EXEC);
  unknownOptions(cx, p);
  for (const o of p.opts) if (o.name === '--env-file' && o.value) cx.read(o.value, { tag: 'env-file' });
  if (p.operands.length < 2) cx.uncertain('docker exec without a container and command');
};

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
  cx.unknownOperands(args.filter((f) => !files.includes(f) && !envFiles.includes(f) && f !== project));
}

const dockerCompose: CommandHandler = (cx) => compose(cx, cx.args);

export const containerExec: Record<string, CommandHandler> = {
  docker,
  kubectl,
  'docker-compose': dockerCompose,
};
