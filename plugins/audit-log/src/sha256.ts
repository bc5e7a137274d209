import * as crypto from 'node:crypto';

// `crypto.hash` (Node ≥ 20.12) hashes in one call without a Hash object: about 30% cheaper per record,
// which matters because the chain hash runs on the decision path. Older runtimes fall back.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export const sha256hex: (data: string) => string = oneShot
  ? (data) => oneShot('sha256', data, 'hex')
  : (data) => crypto.createHash('sha256').update(data).digest('hex');
