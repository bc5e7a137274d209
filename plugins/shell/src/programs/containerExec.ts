import type { CommandHandler } from '../effects/extractTypes.js';
import { type ArgSpec, parseArgs } from './argv.js';
import { unknownOptions } from './spec.js';

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
  if (sub?.value !== 'exec' || sub.uncertain !== undefined) {
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

export const containerExec: Record<string, CommandHandler> = { docker, kubectl };
