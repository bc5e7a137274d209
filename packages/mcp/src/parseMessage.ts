import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
// The SDK's RequestIdSchema / ProgressTokenSchema: a string or a (safe) integer.
const isId = (v: unknown): boolean => typeof v === 'string' || Number.isSafeInteger(v);
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * `_meta` as the SDK's RequestMetaSchema reads it (a loose object: progressToken a string or integer; the
 * related-task entry an object with a string taskId, other keys of that entry stripped). `undefined` when
 * invalid; otherwise the same object, or a copy when something had to be stripped.
 */
function meta(v: unknown): Obj | undefined {
  if (!isObject(v)) return undefined;
  if (v.progressToken !== undefined && !isId(v.progressToken)) return undefined;
  const task = v[RELATED_TASK];
  if (task === undefined) return v;
  if (!isObject(task) || typeof task.taskId !== 'string') return undefined;
  for (const k in task) if (k !== 'taskId') return { ...v, [RELATED_TASK]: { taskId: task.taskId } };
  return v;
}

/** An object that may carry `_meta` (request/notification params, a result): the same object, a copy, or undefined. */
function withMeta(v: unknown): Obj | undefined {
  if (!isObject(v)) return undefined;
  if (v._meta === undefined) return v;
  const m = meta(v._meta);
  if (m === undefined) return undefined;
  return m === v._meta ? v : { ...v, _meta: m };
}

function only(o: Obj, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false;
  return true;
}

const REQUEST_KEYS = ['jsonrpc', 'id', 'method', 'params'] as const;
const NOTIFICATION_KEYS = ['jsonrpc', 'method', 'params'] as const;
const RESULT_KEYS = ['jsonrpc', 'id', 'result'] as const;
const ERROR_KEYS = ['jsonrpc', 'id', 'error'] as const;

/**
 * What `JSONRPCMessageSchema.safeParse(json)` of the MCP SDK accepts, without zod: the union of a request,
 * a notification, a result and an error response, each a strict object (`jsonrpc: "2.0"`, ids a string or a
 * safe integer, `params`/`result` objects whose `_meta` is checked, an error's `code` an integer and
 * `message` a string). Returns the message — the parsed object itself when nothing had to be stripped, so a
 * relay can send its original text — or `undefined` when it is not a JSON-RPC message. The SDK's schema
 * costs a union of four zod objects (and their failure issues) per message; this is the gateway's hot path.
 * `test/parseMessage.test.ts` holds it to the SDK's answer on a corpus of valid and invalid messages.
 */
export function parseMessage(json: unknown): JSONRPCMessage | undefined {
  if (!isObject(json) || json.jsonrpc !== '2.0') return undefined;
  if (typeof json.method === 'string') {
    const isRequest = 'id' in json;
    if (isRequest ? !isId(json.id) || !only(json, REQUEST_KEYS) : !only(json, NOTIFICATION_KEYS))
      return undefined;
    if (json.params === undefined) return json as JSONRPCMessage;
    const params = withMeta(json.params);
    if (params === undefined) return undefined;
    return (params === json.params ? json : { ...json, params }) as JSONRPCMessage;
  }
  if ('method' in json) return undefined;
  if ('result' in json) {
    if (!isId(json.id) || !only(json, RESULT_KEYS)) return undefined;
    const result = withMeta(json.result);
    if (result === undefined) return undefined;
    return (result === json.result ? json : { ...json, result }) as JSONRPCMessage;
  }
  if (!('error' in json) || !only(json, ERROR_KEYS)) return undefined;
  if (json.id !== undefined && !isId(json.id)) return undefined;
  const error = json.error;
  if (!isObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== 'string')
    return undefined;
  // A plain z.object: keys other than code, message and data are stripped.
  for (const k in error)
    if (k !== 'code' && k !== 'message' && k !== 'data') {
      const { code, message, data } = error;
      return {
        ...json,
        error: data === undefined ? { code, message } : { code, message, data },
      } as JSONRPCMessage;
    }
  return json as JSONRPCMessage;
}
