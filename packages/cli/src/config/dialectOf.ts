import { basename, dirname } from 'node:path';
import { DIALECTS } from '@toolgate/folder-rules';
import { UsageError } from '../exitCodes.js';

/**
 * The dialect of a policy file when `--dialect` is not given. Deliberately tiny: a file with toolgate's own
 * name (`toolgate.yaml`, `.toolgate/policy.yaml`, the user's `toolgate/policy.yaml`) is the native dialect.
 * Inferring the dialect from any other file's contents belongs to folder-rules' loader (dialect detection);
 * this is the one call to swap for it.
 */
export function dialectOf(file: string, given: string | undefined): string {
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
  if (native) return 'toolgate';
  throw new UsageError(
    `--dialect is required for ${file} (one of ${DIALECTS.join(', ')}); files named toolgate.yaml or .toolgate/policy.yaml are the native dialect`,
  );
}
