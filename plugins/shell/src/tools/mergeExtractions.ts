import type { Extraction } from '../effects/extractTypes.js';

/** One extraction for the strict-mode checks of a call that ran several commands (an argv read two ways). */
export function mergeExtractions(list: readonly Extraction[]): Extraction {
  const metacharacters = [...new Set(list.flatMap((e) => e.metacharacters))];
  const unknownCommands = [...new Set(list.flatMap((e) => e.unknownCommands))];
  return {
    accesses: list.flatMap((e) => e.accesses),
    uncertain: list.some((e) => e.uncertain),
    metacharacters,
    unknownCommands,
    network: list.flatMap((e) => e.network),
  };
}
