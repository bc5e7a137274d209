export { createProgram, main } from './main.js';
export { Exit, UsageError } from './exitCodes.js';
