import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The JSON-RPC shapes the gateway routes on. The SDK's transports have already validated each message. */
export type RequestId = string | number;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & RpcRequest {
  return 'method' in message && 'id' in message;
}

export function isNotification(message: JSONRPCMessage): message is JSONRPCMessage & RpcNotification {
  return 'method' in message && !('id' in message);
}

export function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & RpcResponse {
  return !('method' in message) && 'id' in message;
}

/** JSON-RPC "server error" range; used when the upstream server is gone. */
export const UPSTREAM_CLOSED = -32000;
/** JSON-RPC "internal error". */
export const INTERNAL_ERROR = -32603;
/** The MCP SDK's request timeout code: the server did not answer in time. */
export const REQUEST_TIMEOUT = -32001;
/** The server answered with a message that is not JSON-RPC, or one over the frame limit. */
export const MALFORMED_RESPONSE = -32002;
/** JSON-RPC "parse error": the client sent something that is not JSON. */
export const PARSE_ERROR = -32700;
/** JSON-RPC "invalid request": the client sent JSON that is not a JSON-RPC message, or one too long. */
export const INVALID_REQUEST = -32600;

export function errorResponse(id: RequestId, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}
