export type { ContextSource, GuardToolsOptions } from './guardTools.js';
export { guardTools } from './guardTools.js';
