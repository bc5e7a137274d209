/** The assistants `toolgate hook` answers for. */
export const HOOK_HOSTS = ['claude-code', 'gemini-cli'] as const;
export type HookHostName = (typeof HOOK_HOSTS)[number];
