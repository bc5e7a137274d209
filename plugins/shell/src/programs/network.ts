import type { CommandHandler } from '../effects/extractTypes.js';
import { containerExec } from './containerExec.js';
import { curlFamily } from './curl.js';
import { sshFamily } from './ssh.js';
import { wgetFamily } from './wget.js';

/**
 * Programs that talk to other machines: each family has its own file with a complete option table (curl.ts,
 * wget.ts, ssh.ts); commands run inside containers and pods are in containerExec.ts.
 */
export const network: Record<string, CommandHandler> = {
  ...curlFamily,
  ...wgetFamily,
  ...sshFamily,
  ...containerExec,
};
