export type { ClientIdentity } from './clientIdentity.js';
export type { Gateway, GatewayOptions } from './createGateway.js';
export { createGateway } from './createGateway.js';
export type { DeniedToolResult } from './denyResult.js';
export { denyResult } from './denyResult.js';
export type { Elicit, ElicitationApprover, ElicitationApproverOptions } from './elicitationApprover.js';
export { elicitationApprover } from './elicitationApprover.js';
export type { HttpUpstream, StdioUpstream, UpstreamOptions } from './upstream.js';
