import { describeValue, ToolgateError } from '@toolgate/core';

/** A config error naming file, field and value, as every loader reports them. */
export function configError(file: string, field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_CONFIG',
    `${file}: field ${field}: ${expected}, got ${describeValue(value)}`,
    { file, field },
  );
}
