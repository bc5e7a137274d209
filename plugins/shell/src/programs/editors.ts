import type { CommandHandler } from '../effects/extractTypes.js';

/**
 * sed, awk and perl moved to their own files (sed.ts, awk.ts, perl.ts), each with a script reader; this table
 * is kept so the registration in table.ts keeps its shape.
 */
export const editors: Record<string, CommandHandler> = {};
