import { type Access, isWithin } from '@toolgate/core';

/**
 * A subtree access is judged against what exists beneath it at check time — unless another command of the
 * same line writes a whole subtree into or over it (`cp -r other/ ws/ && tar czf x ws`, `git clone … ws/d`,
 * `tar -x -C ws`): then what the walk would see is not what the program will meet, and the policy must take
 * the worst case. A command's own writes do not count (`find . -delete` walks what exists), nor do writes of
 * single paths, which are judged themselves.
 */
export function markUnknownContents(
  accesses: readonly Access[],
  commandOf: ReadonlyMap<Access, number>,
): void {
  let writers: Access[] | undefined;
  for (const a of accesses) {
    if (a.op === 'write' && a.scope === 'subtree' && a.certain && a.realPath !== null)
      if (writers) writers.push(a);
      else writers = [a];
  }
  if (!writers) return;
  for (const a of accesses) {
    if (a.scope !== 'subtree' || !a.certain || a.realPath === null || a.unknownContents) continue;
    const own = commandOf.get(a);
    for (const w of writers) {
      if (w === a || commandOf.get(w) === own) continue;
      const wr = w.realPath as string;
      if (isWithin(wr, a.realPath) || isWithin(a.realPath, wr)) {
        a.unknownContents = `${w.origin.split(':')[1] ?? 'another command'} writes ${wr} in the same command line`;
        break;
      }
    }
  }
}
