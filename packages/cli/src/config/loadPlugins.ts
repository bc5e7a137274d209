import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeValue, type GuardPlugin, ToolgateError } from '@toolgate/core';
import type { PluginSpec } from './cliSettings.js';

function fail(file: string, field: string, value: unknown, message: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_CONFIG',
    `${file}: field ${field}: ${message}, got ${describeValue(value)}`,
    { file, field },
  );
}

type Exports = Record<string, unknown> | string | { import?: Exports; default?: Exports; node?: Exports };

/** The ESM entry of an `exports` map's "." for the conditions Node's `import` uses. */
function importTarget(exports: Exports | undefined): string | undefined {
  if (typeof exports === 'string') return exports;
  if (!exports || typeof exports !== 'object') return undefined;
  const map = exports as Record<string, Exports>;
  if ('.' in map) return importTarget(map['.']);
  for (const condition of ['node', 'import', 'default'])
    if (condition in map) {
      const target = importTarget(map[condition]);
      if (target) return target;
    }
  return undefined;
}

/**
 * Where `import(name)` would land if the policy file's directory were the importer: a relative path from that
 * directory, else the package in the nearest node_modules above it (its `exports` for `import`, or `main`).
 * Not `require.resolve`: an ESM-only package (exports with `import` only) has no answer for require.
 */
function resolvePlugin(name: string, from: string): string | undefined {
  if (name.startsWith('.') || isAbsolute(name)) {
    const path = resolve(from, name);
    return existsSync(path) ? path : undefined;
  }
  const parts = name.split('/');
  const pkgName = name.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  const subpath = parts.slice(name.startsWith('@') ? 2 : 1).join('/');
  for (let dir = from; ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', pkgName);
    const manifest = join(root, 'package.json');
    if (existsSync(manifest)) {
      if (subpath) return createRequire(manifest).resolve(`./${subpath}`);
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Exports; main?: string };
      const target = importTarget(pkg.exports) ?? pkg.main ?? 'index.js';
      return join(root, target);
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The plugin factory a module offers: the named export, else `default`, else its only exported function. */
function factoryOf(
  mod: Record<string, unknown>,
  spec: PluginSpec,
  file: string,
): (options?: unknown) => unknown {
  if (spec.export !== undefined) {
    const fn = mod[spec.export];
    if (typeof fn !== 'function')
      throw fail(
        file,
        `${spec.field}.export`,
        spec.export,
        `${spec.package} has no exported function of that name`,
      );
    return fn as (options?: unknown) => unknown;
  }
  if (typeof mod.default === 'function') return mod.default as (options?: unknown) => unknown;
  const functions = Object.entries(mod).filter(([, v]) => typeof v === 'function');
  if (functions.length === 1) return functions[0]![1] as (options?: unknown) => unknown;
  throw fail(
    file,
    `${spec.field}.export`,
    undefined,
    `${spec.package} exports ${functions.length === 0 ? 'no function' : `several functions (${functions.map(([k]) => k).join(', ')})`}; name the plugin factory with export:`,
  );
}

/**
 * Loads the third-party plugins a policy's `plugins:` section names, each resolved from the policy file's
 * directory (where the project installed it) and called with its `options`. The CLI, the hook and the MCP
 * gateway all compose them the same way, after folder-rules. A package that is missing, has no factory, or
 * whose factory throws or returns something that is not a plugin fails at load, naming the file and field.
 *
 * @example
 * ```ts
 * // toolgate.yaml: plugins: [{ package: '@acme/toolgate-secrets', options: { names: ['.env'] } }]
 * const plugins = await loadPlugins(split.plugins, '/repo/toolgate.yaml');
 * ```
 */
export async function loadPlugins(specs: readonly PluginSpec[], file: string): Promise<GuardPlugin[]> {
  const plugins: GuardPlugin[] = [];
  for (const spec of specs) {
    const path = resolvePlugin(spec.package, dirname(file));
    if (!path)
      throw fail(file, `${spec.field}.package`, spec.package, `not installed in or above ${dirname(file)}`);
    let mod: Record<string, unknown>;
    try {
      // A file URL for ESM's import(); the hook bundle (CommonJS, scripts/bundle-hook.mjs) turns import() into
      // require(), which takes the path.
      const target = typeof require === 'function' ? path : pathToFileURL(path).href;
      // A warm hook server (src/hook/hookServer.ts) must not serve later calls with this module still loaded.
      (globalThis as { __toolgateForeignCode?: boolean }).__toolgateForeignCode = true;
      mod = (await import(target)) as Record<string, unknown>;
    } catch (error) {
      throw fail(
        file,
        `${spec.field}.package`,
        spec.package,
        `cannot be imported (${(error as Error).message})`,
      );
    }
    const factory = factoryOf(mod, spec, file);
    let plugin: unknown;
    try {
      plugin = spec.options === undefined ? factory() : factory(spec.options);
    } catch (error) {
      throw fail(
        file,
        `${spec.field}.options`,
        spec.options,
        `rejected by ${spec.package}: ${(error as Error).message}`,
      );
    }
    const p = plugin as Partial<GuardPlugin> | null;
    if (!p || typeof p !== 'object' || typeof p.name !== 'string' || typeof p.apply !== 'function')
      throw fail(file, spec.field, spec.package, 'the factory did not return a plugin ({name, apply})');
    plugins.push(p as GuardPlugin);
  }
  return plugins;
}
