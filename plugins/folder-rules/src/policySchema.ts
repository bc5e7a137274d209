import { z } from 'zod';
import { nativeSchema } from './dialects/toolgate.js';

/** The JSON Schema of the native `toolgate` dialect, generated from the zod schema that validates it. */
export function policySchema(): Record<string, unknown> {
  return z.toJSONSchema(nativeSchema) as Record<string, unknown>;
}
