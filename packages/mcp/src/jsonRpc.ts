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

export function errorResponse(id: RequestId, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}
