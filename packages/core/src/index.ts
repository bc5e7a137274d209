export type { CallState } from './callState.js';
export type { Code, ErrorCode, VerdictCode } from './codes.js';
export { errorCodes, isKnownCode, verdictCodes } from './codes.js';
export type { CreateAccessOptions } from './createAccess.js';
export { createAccess, uncertainAccess } from './createAccess.js';
export type {
  CheckOptions,
  Guard,
  GuardOptions,
  GuardPlugin,
  OnDeny,
  PluginApi,
  SessionGuard,
  WrapOptions,
} from './createGuard.js';
export { createGuard } from './createGuard.js';
export type { Disclosure } from './envelope.js';
export { buildEnvelope, MAX_ALLOWED_PATHS } from './envelope.js';
export { describeValue, isToolgateError, ToolCallRejectedError, ToolgateError } from './errors.js';
export type { ExpandContext, ExpandOptions, Expansion } from './expandPath.js';
export { expandPath } from './expandPath.js';
export type { ArgPath, ArgPathsResult, FindArgPathsOptions } from './findArgPaths.js';
export { argsTouchPaths, findArgPaths } from './findArgPaths.js';
export type {
  ApprovalAnswerMessage,
  ApprovalBus,
  ApprovalMessage,
  AuditSink,
  DecisionEvent,
  GrantStore,
  PolicySource,
  StoredSession,
} from './fleetStores.js';
export type {
  GuardHooks,
  HookFacade,
  HookName,
  HookTimeouts,
  PluginHooks,
  TapSpec,
  ToolResult,
} from './hooks.js';
export { isWithin } from './isWithin.js';
export { LruMap } from './lruMap.js';
export type { NetworkPolicy } from './network/compileNetwork.js';
export { compileNetworkPolicy, compileNetworkRules } from './network/compileNetwork.js';
export type { HostMatcher } from './network/hostPattern.js';
export { compileHostPattern } from './network/hostPattern.js';
export type { NetworkRule, NetworkSection } from './network/networkSection.js';
export { parseNetworkSection, ruleText } from './network/networkSection.js';
export { DEFAULT_PORTS, normaliseHost, parseTarget } from './network/parseTarget.js';
export { NETWORK_PRESETS } from './network/presets.js';
export type {
  CompiledNetworkPolicy,
  NetMethod,
  NetTarget,
  NetworkAccess,
  NetworkAction,
  NetworkRequest,
  NetworkVerdict,
} from './network/types.js';
export { parsePatch } from './patch/parsePatch.js';
export type { PatchAccessOptions } from './patch/patchAccesses.js';
export { patchAccesses } from './patch/patchAccesses.js';
export type { PatchAction, PatchFile, PatchTargets } from './patch/patchTypes.js';
export type { PathKeyKind } from './pathKeys.js';
export { isDataKey, keyWords, pathKeyKind } from './pathKeys.js';
export { fileUriPath, isRemoteUrl, looksLikePath, looksPathish } from './pathShape.js';
export { PluginFailure } from './pluginFailure.js';
export { clearProcessCaches, isProcessAlive, registerProcessCache } from './processCaches.js';
export type { ResolveOptions } from './resolvePath.js';
export { resolvePath } from './resolvePath.js';
export { sandboxNotice } from './sandboxNotice.js';
export type { SessionLimits } from './sessionStore.js';
export { DEFAULT_SESSION_LIMITS } from './sessionStore.js';
export type { Severity, SeverityRule } from './severity.js';
export { accessSeverity, DEFAULT_SEVERITY_RULES, decisionSeverity, SEVERITY_ORDER } from './severity.js';
export type { StageName } from './stages.js';
export { Stage } from './stages.js';
export { lazyBuiltin, monotonicMs } from './startupCost.js';
export type * from './types.js';
export { processContext, validateContext } from './validateContext.js';
