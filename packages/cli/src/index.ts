export { Exit, UsageError } from './exitCodes.js';
export { createProgram, main } from './main.js';
