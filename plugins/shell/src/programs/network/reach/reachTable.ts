import type { CommandHandler } from '../../../effects/extractTypes.js';
import { otherRegistries } from '../../packages/otherRegistries.js';
import { pipReach } from '../../packages/pipReach.js';
import { npmRegistryReach } from '../../packages/registryReach.js';
import { gitReach } from '../../vcs/git/gitRemotes.js';
import { curlReach } from './curlReach.js';
import { dnsReach } from './dnsReach.js';
import { httpClients } from './httpClients.js';
import { kubectlReach } from './kubectlReach.js';
import { socketReach } from './socketReach.js';
import { sshReach } from './sshReach.js';
import { wgetReach } from './wgetReach.js';

/**
 * Where each program connects: one network model a program, beside its path model (`programs/table.ts`) or
 * the unknown-command rule. Each reports hosts with `cx.reach`; a program not here reaches nothing we know of
 * (prove or sandbox: an unknown program is uncertain on the path side anyway). Bash's own `/dev/tcp/HOST/PORT`
 * redirections are reported by the walk (`effects/analyse.ts`).
 */
export const reachTable: ReadonlyMap<string, CommandHandler> = new Map(
  Object.entries({
    curl: curlReach,
    wget: wgetReach,
    git: gitReach,
    ...sshReach,
    ...socketReach,
    ...httpClients,
    ...dnsReach,
    kubectl: kubectlReach,
    ...npmRegistryReach,
    ...pipReach,
    ...otherRegistries,
  }),
);
