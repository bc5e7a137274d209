import {
  type Access,
  type CallState,
  type CreateAccessOptions,
  createAccess,
  fileUriPath,
  findArgPaths,
  isRemoteUrl,
  keyWords,
  type Op,
  patchAccesses,
  uncertainAccess,
} from '@toolgate/core';
import type { Classification } from './classify.js';
import { select } from './selectors.js';
import { COMMAND_KEYS } from './toolTable.js';
import type { CompiledPolicy, ToolSpec } from './types.js';

/** First words that make an argument the source end of a copy or move (`source_filepath`, `from`, `old_path`). */
const SOURCE_WORDS = new Set(['source', 'sources', 'src', 'from', 'old', 'orig', 'original', 'input']);
// Whole words (`confirm_write` is no `rm`): a delete acts on the entry itself, a link is not followed.
const DELETE_WORDS = /delete|remove|unlink|(?:^|[_-])rm(?:$|[_-])/i;
/** Arguments where a patch's text arrives (Codex `apply_patch {input}`, others `{patch}`, `{diff}`). */
const PATCH_ARGS = ['input', 'patch', 'diff', 'content', 'command'];

// Argument names repeat on every call: judged once each (no joined string per call), bounded so hostile names
// cannot grow it.
const contextKeys = new Map<string, boolean>();
const CONTEXT_KEYS_MAX = 4096;

/** The working directory of a call (`cwd`, `working_directory`, `workdir`, `root`): read, never a subtree. */
function isContext(key: string): boolean {
  let hit = contextKeys.get(key);
  if (hit === undefined) {
    const joined = keyWords(key).join('');
    hit = joined === 'cwd' || joined === 'workingdirectory' || joined === 'workdir' || joined === 'root';
    if (contextKeys.size < CONTEXT_KEYS_MAX) contextKeys.set(key, hit);
  }
  return hit;
}

function isSource(key: string): boolean {
  return SOURCE_WORDS.has(keyWords(key)[0] ?? '');
}

function opFor(spec: ToolSpec, key: string, declared: Op | undefined): Op {
  if (declared) return declared;
  if (isContext(key)) return 'read';
  if (spec.op === 'copy') return isSource(key) ? 'read' : 'write';
  if (spec.op === 'read') return 'read';
  if (spec.op === 'list') return 'list';
  return 'write';
}

/** A tool whose operation an argument chooses (`opByArg`): the spec with that operation. */
function specForArgs(spec: ToolSpec, args: Record<string, unknown>): ToolSpec {
  if (!spec.opByArg) return spec;
  const v = args[spec.opByArg.arg];
  const op = typeof v === 'string' && Object.hasOwn(spec.opByArg.ops, v) ? spec.opByArg.ops[v] : undefined;
  return op === undefined ? spec : { ...spec, op };
}

/** The accesses of one call of a file or MCP tool, and those of them no classification accounts for. */
export interface ToolAccesses {
  accesses: Access[];
  /** Path-looking values of an unknown tool, or ones only their shape revealed: `unknownTools` decides. */
  unattributed: Access[];
}

/**
 * Turns a file or MCP tool call into accesses: the paths its declaration names (policy `tools`, the
 * built-in table, the server's schema), every other argument whose *name* says it is a path, at any depth,
 * and — for tools nobody declared — every value *shaped* like a path. A path argument that is not a usable
 * string is an uncertain access, never skipped; a patch tool's patch is parsed for the files it writes.
 */
export function toolAccesses(
  tool: string,
  args: Record<string, unknown>,
  c: Exclude<Classification, { kind: 'shell' }>,
  policy: CompiledPolicy,
  state: CallState,
): ToolAccesses {
  const spec = specForArgs(c.spec, args);
  const out: ToolAccesses = { accesses: [], unattributed: [] };
  if (spec.op === 'shell' || spec.op === 'opaque') return out;
  // Folder Guard resolves relative paths against the workspace root, not the cwd.
  const ctx = policy.relativeTo === 'workspace' ? { ...state.ctx, cwd: state.ctx.workspace } : state.ctx;
  if (spec.op === 'none' && !(c.kind === 'known' && c.source === 'schema')) {
    // A pathless tool still reads a `file://` URI it is handed (`web_fetch {url: "file:///etc/passwd"}`).
    for (const f of findArgPaths(args, { mode: 'loose' }).found) {
      const path = typeof f.value === 'string' ? fileUriPath(f.value) : undefined;
      if (path === undefined) continue;
      const origin = `folder-rules:args.${f.where}`;
      out.accesses.push(
        path === null
          ? uncertainAccess(String(f.value), 'read', origin, 'a file:// URI naming another host')
          : state.access(path, 'read', { origin }),
      );
    }
    return out;
  }
  if (spec.op === 'patch') return { accesses: patchOf(args, ctx), unattributed: [] };

  const add = (raw: unknown, key: string, where: string, op: Op, into: Access[]) => {
    const origin = `folder-rules:args.${where}`;
    // Folder Guard: "Empty string or \".\": Normalized to workspace root" — `""` is the workspace itself.
    const asText =
      typeof raw === 'string' ? (raw === '' && policy.relativeTo === 'workspace' ? '.' : raw) : undefined;
    const uri = asText === undefined ? undefined : fileUriPath(asText);
    if (asText === undefined || asText.length === 0 || asText.includes('\0') || uri === null) {
      into.push(uncertainAccess(String(raw), op, origin, 'path argument is not a usable string'));
      return;
    }
    const onLink =
      (spec.op === 'move' && isSource(key)) ||
      (spec.op !== 'copy' && op === 'write' && DELETE_WORDS.test(tool));
    const scope = spec.subtree && !isContext(key) ? 'subtree' : 'path';
    const options: CreateAccessOptions = onLink ? { origin, scope, followFinal: false } : { origin, scope };
    const path = uri ?? asText;
    into.push(ctx === state.ctx ? state.access(path, op, options) : createAccess(path, op, ctx, options));
  };

  const covered = new Set<string>();
  if (c.kind === 'known') {
    for (const d of c.declared) {
      for (const hit of select(args, d.selector)) {
        covered.add(hit.where);
        const key = d.selector.steps.at(-1)?.key ?? hit.where;
        const op = opFor(spec, key, d.op);
        if (hit.mismatch) {
          out.accesses.push(
            uncertainAccess(
              String(hit.value),
              op,
              `folder-rules:args.${hit.where}`,
              `arguments do not match the declaration ${d.selector.text}: ${hit.mismatch}`,
            ),
          );
        } else if (!(typeof hit.value === 'string' && isRemoteUrl(hit.value)))
          add(hit.value, key, hit.where, op, out.accesses);
      }
    }
  }
  // A declared tool's other path-named arguments are checked with its op (`tool_image_analyze
  // {image_path}`); an undeclared tool's, and anything only shaped like a path, are unattributed.
  const known = c.kind === 'known';
  const found = findArgPaths(args, {
    mode: known && c.source !== 'schema' ? 'strict' : 'loose',
    skip: COMMAND_KEYS,
  });
  if (found.overflow !== undefined)
    out.accesses.push(uncertainAccess('(arguments)', 'write', 'folder-rules:args', found.overflow));
  for (const f of found.found) {
    if (covered.has(f.where)) continue;
    const attributed = known && f.by === 'name' && spec.op !== 'none';
    add(f.value, f.key, f.where, opFor(spec, f.key, undefined), attributed ? out.accesses : out.unattributed);
  }
  for (const dir of spec.writes ?? []) {
    const origin = `folder-rules:tool.${tool}`;
    out.accesses.push(createAccess(dir, 'write', ctx, { origin }));
  }
  out.accesses.push(...out.unattributed);
  return out;
}

/** A patch tool's files: the text of its patch argument (or `["apply_patch", text]`), parsed once. */
function patchOf(args: Record<string, unknown>, ctx: CallState['ctx']): Access[] {
  const out: Access[] = [];
  for (const key of PATCH_ARGS) {
    if (!Object.hasOwn(args, key)) continue;
    let text = args[key];
    if (Array.isArray(text) && text.length === 2 && /(^|\/)apply_?patch$/.test(String(text[0])))
      text = text[1];
    out.push(...patchAccesses(text, ctx, { origin: `folder-rules:args.${key}` }));
  }
  if (out.length === 0)
    out.push(
      uncertainAccess(
        'apply_patch',
        'write',
        'folder-rules:args',
        `no patch argument (${PATCH_ARGS.join(', ')})`,
      ),
    );
  return out;
}
