import type { CommandContext } from '../../../effects/extractTypes.js';
import { literal } from '../../spec.js';

/**
 * Whether an earlier command of this line may write `path` (so what is on disk now is not what git will
 * see). The engine answers this only through `readContent`; a 0-byte bound keeps the probe from reading.
 * A dedicated `cx.writtenBefore(path)` would be cleaner (asked for in the report).
 */
export function lineMayWrite(cx: CommandContext, path: string): boolean {
  const r = cx.readContent(literal(path), 0);
  return 'uncertain' in r && r.uncertain.includes('may be written by this command line');
}
