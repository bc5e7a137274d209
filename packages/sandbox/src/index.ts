export type { SandboxNetwork } from './bwrapArgs.js';
export { bwrapArgs } from './bwrapArgs.js';
export type { CompileOptions } from './compileMounts.js';
export { compileMounts, daemonSockets } from './compileMounts.js';
export type { WalkBounds } from './globWalk.js';
export type { SandboxLimits } from './limits.js';
export { describeLimits, KILL_AFTER_MS, limitsOf, WALL_TIME_EXIT } from './limits.js';
export type { MountOp, MountPlan } from './mountPlan.js';
export { FLOOR } from './mountPlan.js';
export type {
  ConnectionRecord,
  NetworkMode,
  NetworkProxy,
  NetworkProxyOptions,
  PromptRequest,
  ProxyVia,
  Upstream,
} from './network/index.js';
export {
  bridgeKind,
  NATIVE_BRIDGE,
  nativeBridge,
  networkModeOf,
  newProxySocketPath,
  PROXY_PORT,
  proxyBase,
  proxyEnv,
  startNetworkProxy,
  upstreamFromEnv,
} from './network/index.js';
export type { Availability } from './probe.js';
export { probeSandbox } from './probe.js';
export type { SandboxExit } from './runSandboxed.js';
export { runSandboxed } from './runSandboxed.js';
export type { SandboxGuard, SandboxOptions } from './sandbox.js';
export { sandbox } from './sandbox.js';
export { SandboxCompileError } from './sandboxError.js';
export type { SandboxMode } from './sandboxMode.js';
export { SANDBOX_MODES, sandboxModeOf } from './sandboxMode.js';
export { shellJoin, shellQuote } from './shellQuote.js';
