export { approvals } from './approvals.js';
export type {
  ApprovalDesk,
  DeskAccess,
  DeskAnswer,
  DeskEvent,
  DeskHost,
  DeskItem,
  SettleCause,
} from './desk.js';
export { deskItemOf } from './deskItem.js';
export type { CorruptSessionError } from './fileGrantStore.js';
export { fileGrantStore } from './fileGrantStore.js';
export type { ApprovalsOptions } from './options.js';
export type { Overlay, OverlayRule } from './overlayFile.js';
export { sessionDirName } from './sessionDirName.js';
export type { SavedSession } from './sessionFile.js';
export { sessionFile } from './sessionFile.js';
export type { AutoAllowOptions } from './strategies/autoAllow.js';
export { autoAllow } from './strategies/autoAllow.js';
export type { AutoDenyOptions } from './strategies/autoDeny.js';
export { autoDeny } from './strategies/autoDeny.js';
export type { BusStrategyOptions } from './strategies/bus.js';
export { busStrategy } from './strategies/bus.js';
export type { DeskOptions, DeskStrategy } from './strategies/desk.js';
export { desk } from './strategies/desk.js';
export { firstOf } from './strategies/firstOf.js';
export type { QueueOptions, QueueStrategy } from './strategies/queue.js';
export { queue } from './strategies/queue.js';
export type { TtyOptions } from './strategies/tty.js';
export { parseTtyAnswer, TTY_QUESTION, tty } from './strategies/tty.js';
export type { Suggestion } from './suggestion.js';
export type {
  ApprovalAnswer,
  ApprovalItem,
  ApprovalRequest,
  ApprovalStrategy,
  Grant,
  GrantScope,
} from './types.js';
