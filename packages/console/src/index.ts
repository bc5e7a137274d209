export type { AuditFilter } from './auditData.js';
export type {
  DecisionListener,
  DecisionStream,
  DecisionStreamOptions,
  DecisionSummary,
} from './decisionStream.js';
export { decisionStream } from './decisionStream.js';
export type { AuditSource, ConsoleOptions, ExplainInput, ExplainView } from './options.js';
export type { WebConsole } from './server.js';
export { startConsole } from './server.js';
