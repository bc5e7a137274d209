import type { CommandHandler } from '../../../effects/extractTypes.js';
import { literal } from '../../spec.js';
import { reachAddress, unknownHost, variableValue } from './netReach.js';

// kubectl (kubernetes.io "Organizing Cluster Access Using kubeconfig Files"): every command but a few local
// ones talks to the API server — `--server`/`-s`, else the clusters of the kubeconfig (`--kubeconfig`, else
// `$KUBECONFIG`, else ~/.kube/config). Which context is current is not evaluated: every cluster's server of
// the file is reported (each is judged), so a file with one cluster is exact.

const LOCAL = new Set([
  'version',
  'config',
  'completion',
  'kustomize',
  'plugin',
  'help',
  'api-resources-local',
]);
const WRITES =
  /^(apply|create|delete|edit|patch|replace|scale|set|label|annotate|expose|rollout|run|cp|exec|attach|port-forward|proxy|drain|cordon|uncordon|taint|certificate|autoscale)$/;

export const kubectlReach: CommandHandler = (cx) => {
  const words = cx.args.filter((f) => f.uncertain !== undefined || !f.value.startsWith('-'));
  const sub = words[0];
  if (!sub || (sub.uncertain === undefined && LOCAL.has(sub.value))) return;
  if (cx.args.some((f) => f.value === '--client' || f.value === '--dry-run=client' || f.value === '--local'))
    return;
  const method = sub.uncertain !== undefined || WRITES.test(sub.value) ? 'write' : 'read';
  const opt = (names: string[]) => {
    for (let k = 0; k < cx.args.length; k++) {
      const v = cx.args[k]!.value;
      for (const n of names) {
        if (v === n) return cx.args[k + 1];
        if (v.startsWith(`${n}=`)) return { ...cx.args[k]!, value: v.slice(n.length + 1) };
      }
    }
    return undefined;
  };
  const serverOpt = opt(['--server', '-s']);
  if (serverOpt) {
    reachAddress(cx, serverOpt, { method, scheme: 'https', reason: 'kubectl --server' });
    return;
  }
  const fileOpt = opt(['--kubeconfig']);
  const env = variableValue(cx, 'KUBECONFIG');
  if (env === null || fileOpt?.uncertain !== undefined) {
    unknownHost(cx, 'kubeconfig', { method }, 'kubectl: the kubeconfig is not known');
    return;
  }
  const files = fileOpt
    ? [fileOpt]
    : env
      ? env
          .split(':')
          .filter(Boolean)
          .map((f) => literal(f))
      : [{ ...literal('~/.kube/config'), tilde: true }];
  let any = false;
  for (const f of files) {
    const c = cx.readContent(f, 1024 * 1024);
    if ('uncertain' in c) {
      if (/: (ENOENT|ENOTDIR)$/.test(c.uncertain)) continue;
      unknownHost(cx, f.raw, { method }, `kubectl: ${f.raw}: ${c.uncertain}`);
      return;
    }
    for (const m of c.text.matchAll(/^\s*server:\s*["']?([^"'\s]+)["']?\s*$/gm)) {
      any = true;
      reachAddress(cx, m[1]!, {
        method,
        scheme: 'https',
        origin: 'kubectl:kubeconfig',
        reason: `a cluster of ${f.raw}`,
      });
    }
  }
  // No kubeconfig: kubectl tries localhost:8080 (and fails).
  if (!any) reachAddress(cx, 'http://localhost:8080/', { method, reason: 'kubectl without a kubeconfig' });
};
