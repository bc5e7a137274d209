import { type CallState, isRemoteUrl, type NetMethod, parseTarget } from '@toolgate/core';
import type { Classification } from './classify.js';
import { compileSelector, type Selector, select } from './selectors.js';
import { looksWriteLike } from './toolTable.js';
import type { ToolSpec, UrlDeclaration } from './types.js';

/** Top-level arguments that name what a tool fetches when nobody declared its URLs (MCP fetch servers). */
const URL_KEYS = ['url', 'uri', 'urls', 'uris'];
/** An absolute http(s) URL inside prose (trailing punctuation is trimmed where it is found). */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** HTTP methods that only read. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Arguments that carry a request body: the call sends data out. */
const BODY_KEYS = ['body', 'data', 'json', 'form', 'payload'];

interface CompiledUrl {
  selector: Selector;
  method?: NetMethod;
}

// Selectors compiled once per tool spec, not per call.
const compiled = new WeakMap<ToolSpec, readonly CompiledUrl[]>();

function urlsOf(spec: ToolSpec): readonly CompiledUrl[] {
  let out = compiled.get(spec);
  if (!out) {
    out = (spec.urls ?? []).flatMap((d: UrlDeclaration) => {
      const selector = compileSelector(typeof d === 'string' ? d : d.arg);
      if (!selector) return [];
      return [{ selector, ...(typeof d === 'object' && d.method ? { method: d.method } : {}) }];
    });
    compiled.set(spec, out);
  }
  return out;
}

/**
 * What a call does to the host: a declared method, else `write` when its arguments carry an HTTP method
 * other than GET/HEAD/OPTIONS or a body, or the tool's name says it writes; else `read`.
 */
function methodOf(args: Record<string, unknown>, tool: string, declared: NetMethod | undefined): NetMethod {
  if (declared) return declared;
  const m = args.method;
  if (typeof m === 'string' && !READ_METHODS.has(m.toUpperCase())) return 'write';
  if (m !== undefined && typeof m !== 'string') return 'write';
  for (const key of BODY_KEYS) {
    const v = args[key];
    if (v !== undefined && v !== null && v !== '') return 'write';
  }
  return looksWriteLike(tool) ? 'write' : 'read';
}

function reach(state: CallState, value: unknown, where: string, method: NetMethod, declared: boolean): void {
  const origin = `folder-rules:args.${where}`;
  if (typeof value !== 'string' || value === '') {
    if (declared)
      state.reach({
        raw: String(value),
        host: null,
        method,
        origin,
        certain: false,
        reason: 'URL argument is not a string',
      });
    return;
  }
  // A `file://` URI is a path (extract.ts judges it); a word that is no URL is not a reach of anyone.
  if (!isRemoteUrl(value)) {
    if (declared && !/^file:/i.test(value))
      state.reach({ raw: value, host: null, method, origin, certain: false, reason: 'not an absolute URL' });
    return;
  }
  const t = parseTarget(value);
  state.reach({
    raw: value,
    host: t.host,
    method,
    origin,
    certain: t.certain,
    ...(t.scheme !== undefined ? { scheme: t.scheme } : {}),
    ...(t.port !== undefined ? { port: t.port } : {}),
    ...(t.reason !== undefined ? { reason: t.reason } : {}),
  });
}

/**
 * The hosts a file or MCP tool call reaches: the URL arguments its spec declares (`urls`, e.g. WebFetch's
 * `url`), or, for a tool that declares none, top-level `url`/`uri`/`urls`/`uris` holding absolute URLs (MCP
 * fetch servers). Each is a `state.reach` with its method. A declared URL argument that is not a usable
 * URL is an uncertain reach, never skipped.
 */
export function urlReaches(
  tool: string,
  args: Record<string, unknown>,
  c: Exclude<Classification, { kind: 'shell' }>,
  state: CallState,
): void {
  const declared = c.kind === 'known' ? urlsOf(c.spec) : [];
  if (c.kind === 'known')
    for (const key of c.spec.urlText ?? []) {
      const text = args[key];
      if (typeof text !== 'string') continue;
      for (const m of text.matchAll(URL_IN_TEXT))
        reach(state, m[0].replace(/[.,;:!?)\]}'"]+$/, ''), key, 'read', false);
    }
  if (declared.length > 0) {
    for (const d of declared) {
      const method = methodOf(args, tool, d.method);
      for (const hit of select(args, d.selector)) reach(state, hit.value, hit.where, method, true);
    }
    return;
  }
  if (c.kind === 'known' && c.spec.op === 'opaque') return;
  for (const key of URL_KEYS) {
    if (!Object.hasOwn(args, key)) continue;
    const v = args[key];
    const method = methodOf(args, tool, undefined);
    if (!Array.isArray(v)) reach(state, v, key, method, false);
    else for (const [i, u] of v.entries()) reach(state, u, `${key}[${i}]`, method, false);
  }
}
