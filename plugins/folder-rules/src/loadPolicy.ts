import { describeValue, ToolgateError } from '@toolgate/core';
import { positionOf } from './configPosition.js';
import { checkDialect, inferDialect } from './dialects/detectDialect.js';
import type { LoadContext } from './dialects/fields.js';
import { loadFolderGuard } from './dialects/folderguard.js';
import { loadHermes } from './dialects/hermes.js';
import { checkKnownKeys } from './dialects/knownKeys.js';
import { loadOpenFang, loadOpenFangOverlay } from './dialects/openfang.js';
import { loadToolgate } from './dialects/toolgate.js';
import { loadWolo } from './dialects/wolo.js';
import { loadWunderland } from './dialects/wunderland.js';
import type { PolicyDraft } from './draft.js';
import { stableHash } from './hash.js';
import { finalizeLayered } from './layer.js';
import { type ConfigFormat, formatOf, parseConfig, readConfig } from './parseConfig.js';
import type { CompiledPolicy } from './types.js';

export const DIALECTS = ['toolgate', 'folderguard', 'wunderland', 'wolo', 'hermes', 'openfang'] as const;
export type DialectName = (typeof DIALECTS)[number];

type Loader = (data: unknown, file: string, ctx: LoadContext) => PolicyDraft;

const LOADERS: Record<DialectName, { load: Loader; overlay: Loader; format: ConfigFormat }> = {
  toolgate: { load: loadToolgate, overlay: loadToolgate, format: 'yaml' },
  folderguard: { load: loadFolderGuard, overlay: loadFolderGuard, format: 'json' },
  wunderland: { load: loadWunderland, overlay: loadWunderland, format: 'json' },
  wolo: { load: loadWolo, overlay: loadWolo, format: 'yaml' },
  hermes: { load: loadHermes, overlay: loadHermes, format: 'yaml' },
  openfang: { load: loadOpenFang, overlay: loadOpenFangOverlay, format: 'toml' },
};

export interface LoadPolicyOptions {
  /**
   * The file's dialect. Optional: inferred from the keys only one dialect reads (and the file name, to
   * break a tie). Given, it must recognise something in the file, or loading fails naming the mismatch.
   */
  dialect?: DialectName;
  /** The policy file (its extension picks YAML, JSON or TOML; otherwise the dialect's usual format). */
  file?: string;
  /** The file's text, when it is not on disk (then `file` only names it in messages). */
  source?: string;
  /** Apply the per-agent overlay of this agent carried in the file (`agents.<name>`), if any. */
  agent?: string;
  /** Per-agent overlay files of the same dialect, applied in order over the global policy. */
  overlays?: readonly string[];
  /** Treat every overlay as narrowOnly: refuse one that would widen anything. */
  narrowOnly?: boolean;
  /** Where `${VAR}` in the config expand from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** wolo only: seed 002's `cli_paths` (`--allow-path/-P`), writable without confirmation. */
  cliPaths?: readonly string[];
}

interface Parsed {
  data: unknown;
  text: string;
  format: ConfigFormat;
}

function parseFile(dialect: DialectName | undefined, file: string, source: string | undefined): Parsed {
  const text = source ?? readConfig(file);
  const known = formatOf(file, undefined);
  if (known !== undefined || dialect !== undefined) {
    const format = known ?? LOADERS[dialect!].format;
    return { data: parseConfig(text, file, format), text, format };
  }
  // Neither the name nor a dialect says the format: YAML (which reads JSON too), else TOML.
  try {
    return { data: parseConfig(text, file, 'yaml'), text, format: 'yaml' };
  } catch (yamlError) {
    try {
      return { data: parseConfig(text, file, 'toml'), text, format: 'toml' };
    } catch {
      throw yamlError;
    }
  }
}

/** Adds `(at line L, column C)` to a config error about a field, when the field can be found in the text. */
function located<T>(parsed: Parsed, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (
      !(error instanceof ToolgateError) ||
      typeof error.details.field !== 'string' ||
      error.details.line !== undefined
    )
      throw error;
    const pos =
      error.details.field === '(root)'
        ? undefined
        : positionOf(parsed.text, parsed.format, error.details.field);
    if (!pos) throw error;
    const message = `${error.message} (at line ${pos.line}, column ${pos.col})`;
    throw new ToolgateError(
      error.code,
      message,
      { ...error.details, line: pos.line, column: pos.col },
      { cause: error },
    );
  }
}

function loadLayer(
  dialect: DialectName | undefined,
  file: string,
  source: string | undefined,
  overlay: boolean,
  ctx: LoadContext,
) {
  const parsed = parseFile(dialect, file, source);
  return located(parsed, () => {
    let name = dialect;
    if (name === undefined) name = inferDialect(parsed.data, file) as DialectName;
    else if (!overlay) checkDialect(name, parsed.data, file, 'mismatch');
    checkKnownKeys(name, parsed.data, file);
    if (dialect !== undefined && !overlay) checkDialect(name, parsed.data, file, 'empty');
    const loaders = LOADERS[name];
    return { dialect: name, draft: (overlay ? loaders.overlay : loaders.load)(parsed.data, file, ctx) };
  });
}

/**
 * Loads a policy written in any dialect, layers overlays and compiles it into the canonical model.
 * Synchronous: it runs once at setup, and a bad file throws there (naming file, field and value).
 *
 * @example
 * ```ts
 * import { loadPolicy } from '@toolgate/folder-rules';
 * const policy = loadPolicy({ dialect: 'openfang', file: '/etc/agent/config.toml', agent: 'researcher' });
 * const inferred = loadPolicy({ file: 'toolgate.yaml' }); // the dialect is read from the file's keys
 * console.log(policy.hash, policy.rules.length);
 * ```
 */
export function loadPolicy(options: LoadPolicyOptions): CompiledPolicy {
  if (options === null || typeof options !== 'object')
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `loadPolicy: options must be an object, got ${describeValue(options)}`,
    );
  const { dialect } = options;
  if (dialect !== undefined && !DIALECTS.includes(dialect))
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `loadPolicy: option dialect must be one of ${DIALECTS.join(', ')}, got ${describeValue(dialect)}`,
    );
  if (typeof options.file !== 'string' && typeof options.source !== 'string')
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      'loadPolicy: give option file (a path) or source (the text)',
    );
  const file = options.file ?? `<inline ${dialect ?? 'policy'}>`;
  if (options.cliPaths !== undefined) {
    if (dialect !== 'wolo')
      throw new ToolgateError(
        'TOOLGATE_ERR_INVALID_OPTIONS',
        `loadPolicy: option cliPaths is seed 002's (dialect wolo), got dialect ${describeValue(dialect)}`,
      );
    if (!Array.isArray(options.cliPaths) || options.cliPaths.some((p) => typeof p !== 'string' || p === ''))
      throw new ToolgateError(
        'TOOLGATE_ERR_INVALID_OPTIONS',
        `loadPolicy: option cliPaths must be a list of paths, got ${describeValue(options.cliPaths)}`,
      );
  }
  const ctx: LoadContext = {
    env: options.env ?? process.env,
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.cliPaths ? { cliPaths: options.cliPaths } : {}),
  };
  const { dialect: resolved, draft: base } = loadLayer(dialect, file, options.source, false, ctx);
  const overlays: PolicyDraft[] = [];
  const sources = [file];
  const inFile = options.agent !== undefined ? base.agents?.[options.agent] : undefined;
  if (inFile) {
    overlays.push(options.narrowOnly ? { ...inFile, narrowOnly: true } : inFile);
    sources.push(`${file}#agents.${options.agent}`);
  }
  for (const overlayFile of options.overlays ?? []) {
    const draft = loadLayer(resolved, overlayFile, undefined, true, ctx).draft;
    overlays.push(options.narrowOnly ? { ...draft, narrowOnly: true } : draft);
    sources.push(overlayFile);
  }
  const compiled = finalizeLayered(base, overlays, sources);
  return withAgents(
    compiled,
    options.agent === undefined ? base : undefined,
    overlays.slice(0),
    sources,
    file,
  );
}

/**
 * Without an `agent` option, every agent the file names gets its own compiled policy (the global one layered
 * with its overlay, then the overlay files), and folder-rules picks one per call by `ctx.agentId` (seed 001:
 * one guard, `setFolderPermissions(agentId, config)` per agent). Compiled here, once, never per call.
 */
function withAgents(
  compiled: CompiledPolicy,
  base: PolicyDraft | undefined,
  overlays: PolicyDraft[],
  sources: string[],
  file: string,
): CompiledPolicy {
  const named = base?.agents ? Object.entries(base.agents) : [];
  if (named.length === 0) return compiled;
  const agents: Record<string, CompiledPolicy> = {};
  for (const [name, draft] of named)
    agents[name] = finalizeLayered(
      base as PolicyDraft,
      [draft, ...overlays],
      [file, `${file}#agents.${name}`, ...sources.slice(1)],
    );
  const hash = stableHash({
    global: compiled.hash,
    agents: Object.fromEntries(Object.entries(agents).map(([n, p]) => [n, p.hash])),
  });
  return Object.freeze({ ...compiled, hash, agents: Object.freeze(agents) });
}
