import { configError } from './configError.js';

/**
 * Expands `${VAR}` and `$VAR` in a config path at load time (Hermes: `${HERMES_HOME}`). `$HOME` and `~` are
 * left for the call's context; an unset variable is a config error naming the field, never an empty string.
 */
export function expandVars(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  file: string,
  field: string,
): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, a, b) => {
    const name = (a ?? b) as string;
    if (name === 'HOME') return whole;
    const v = env[name];
    if (v === undefined || v === '') throw configError(file, field, value, `variable ${name} is not set`);
    return v;
  });
}

/** Names of the variables a pattern still refers to after load (bound per context). */
export function varsIn(pattern: string): string[] {
  return [...pattern.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] as string);
}
