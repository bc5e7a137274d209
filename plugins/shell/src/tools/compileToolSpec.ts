import type { CompiledToolSpec, ShellToolSpec } from './toolSpec.js';

/** Reports an invalid field (`tools.<name>.<field>`) with the value found; never returns. */
export type FailField = (field: string, value: unknown, expected: string) => never;

const KEYS = new Set([
  'commandArg',
  'form',
  'cwdArg',
  'envArg',
  'shellArg',
  'loginArg',
  'defaultShell',
  'defaultLogin',
  'base',
  'kind',
  'inputFlagArg',
  'applyPatch',
  'userArg',
]);

function name(value: unknown, field: string, fail: FailField): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') fail(field, value, 'a non-empty string');
  return value;
}

/**
 * Checks one tool spec and fills in its defaults. Unknown fields are errors: a misspelt `cwdArgs` would
 * otherwise silently leave the working directory unread.
 */
export function compileToolSpec(tool: string, spec: ShellToolSpec, fail: FailField): CompiledToolSpec {
  const at = `tools.${tool}`;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    fail(at, spec, '{ commandArg: string, … } or false');
  for (const key of Object.keys(spec))
    if (!KEYS.has(key))
      fail(
        `${at}.${key}`,
        (spec as unknown as Record<string, unknown>)[key],
        `one of ${[...KEYS].join(', ')}`,
      );
  const commandArg = name(spec.commandArg, `${at}.commandArg`, fail);
  if (commandArg === undefined) fail(`${at}.commandArg`, undefined, 'a non-empty string');
  const form = spec.form ?? 'script';
  if (!['script', 'argv', 'either'].includes(form)) fail(`${at}.form`, form, '"script", "argv" or "either"');
  const kind = spec.kind ?? 'command';
  if (!['command', 'input', 'code', 'patch'].includes(kind))
    fail(`${at}.kind`, kind, '"command", "input", "code" or "patch"');
  const cwd = spec.cwdArg === undefined ? [] : typeof spec.cwdArg === 'string' ? [spec.cwdArg] : spec.cwdArg;
  if (!Array.isArray(cwd) || cwd.some((c) => typeof c !== 'string' || c === ''))
    fail(`${at}.cwdArg`, spec.cwdArg, 'a non-empty string or an array of them');
  for (const flag of ['defaultLogin', 'applyPatch'] as const)
    if (spec[flag] !== undefined && typeof spec[flag] !== 'boolean')
      fail(`${at}.${flag}`, spec[flag], 'a boolean');
  return {
    commandArg,
    form,
    cwdArgs: cwd,
    envArg: name(spec.envArg, `${at}.envArg`, fail),
    shellArg: name(spec.shellArg, `${at}.shellArg`, fail),
    loginArg: name(spec.loginArg, `${at}.loginArg`, fail),
    defaultShell: name(spec.defaultShell, `${at}.defaultShell`, fail) ?? 'bash',
    defaultLogin: spec.defaultLogin ?? false,
    base: name(spec.base, `${at}.base`, fail),
    kind,
    inputFlagArg: name(spec.inputFlagArg, `${at}.inputFlagArg`, fail),
    applyPatch: spec.applyPatch ?? false,
    userArg: name(spec.userArg, `${at}.userArg`, fail),
  };
}
