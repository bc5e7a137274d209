import { basename, dirname } from 'node:path';
import { DIALECTS } from '@toolgate/folder-rules';
import { UsageError } from '../exitCodes.js';

/**
 * The dialect of a policy file when `--dialect` is not given: a file with toolgate's own name
 * (`toolgate.yaml`, `.toolgate/policy.yaml`, the user's `toolgate/policy.yaml`) is the native dialect;
 * any other is left to folder-rules' loader, which infers it from the keys only one dialect reads
 * (`undefined`), and refuses a file in which the named dialect recognises nothing.
 */
export function dialectOf(file: string, given: string | undefined): string | undefined {
  const name = basename(file);
  const dir = basename(dirname(file));
  const native =
    /^toolgate\.(ya?ml|json|toml)$/.test(name) ||
    (/^policy\.(ya?ml|json|toml)$/.test(name) && /^\.?toolgate$/.test(dir));
  if (given !== undefined) {
    if (!(DIALECTS as readonly string[]).includes(given))
      throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}, got ${JSON.stringify(given)}`);
    // Read as another dialect, a native file loses its rules (an empty policy that allows): refuse instead.
    if (native && given !== 'toolgate')
      throw new UsageError(`${file} is a toolgate policy (by its name), not --dialect ${given}`);
    return given;
  }
  return native ? 'toolgate' : undefined;
}
