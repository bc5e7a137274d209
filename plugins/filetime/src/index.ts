export { fileTime } from './fileTime.js';
export type { FileTimeOptions } from './options.js';
export type { Stamp } from './stamp.js';
