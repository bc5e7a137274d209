export type { RedisApprovalBus, RedisApprovalBusOptions } from './approvalBus.js';
export { redisApprovalBus } from './approvalBus.js';
export type { RedisConnectionOptions } from './connection.js';
export type { RedisDesk, RedisDeskOptions } from './desk.js';
export { redisDesk } from './desk.js';
export type { RedisGrantStore, RedisGrantStoreOptions } from './grantStore.js';
export { redisGrantStore } from './grantStore.js';
