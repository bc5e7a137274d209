/** bash's compiled-in search path, used when the environment has no PATH at all (config-top.h). */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:.';
