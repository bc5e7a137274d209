export { bridgeCommand, bridgeKind, NATIVE_BRIDGE, nativeBridge, PROXY_PORT, proxyEnv } from './bridge.js';
export type { ConnectionRecord, ProxyVia } from './connectionRecord.js';
export { type Upstream, upstreamFromEnv } from './dial.js';
export type { PromptRequest } from './judge.js';
export { type NetworkMode, networkModeOf } from './networkMode.js';
export { newProxySocketPath, proxyBase } from './proxyDir.js';
export type { NetworkProxy, NetworkProxyOptions } from './startNetworkProxy.js';
export { startNetworkProxy } from './startNetworkProxy.js';
