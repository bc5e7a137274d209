import type { HookHostName } from '../integrations/hookHostNames.js';
import { HOST_SETTINGS } from './hostSettings.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A hook entry toolgate installed: its command runs `toolgate … hook <assistant>` (by name or bin path). */
export function isToolgateEntry(entry: unknown, host: HookHostName): boolean {
  if (!isObject(entry) || typeof entry.command !== 'string') return false;
  const command = entry.command;
  return (
    new RegExp(`\\bhook\\s+${host}\\b`).test(command) &&
    /toolgate|\/cli\/(dist\/bin\.js|bin\/toolgate\.cjs)/.test(command)
  );
}

export interface Edit {
  settings: Json;
  /** `added`, `updated` (a toolgate entry with another command), `unchanged`, `removed`, `absent`. */
  outcome: 'added' | 'updated' | 'unchanged' | 'removed' | 'absent';
}

function groupsOf(settings: Json, event: string): unknown[] {
  const hooks = isObject(settings.hooks) ? settings.hooks : undefined;
  const groups = hooks?.[event];
  return Array.isArray(groups) ? groups : [];
}

/** Every group with toolgate's entries taken out; groups left empty by that are dropped. */
function without(groups: unknown[], host: HookHostName): { groups: unknown[]; removed: unknown[] } {
  const removed: unknown[] = [];
  const kept: unknown[] = [];
  for (const group of groups) {
    if (!isObject(group) || !Array.isArray(group.hooks)) {
      kept.push(group);
      continue;
    }
    const mine = group.hooks.filter((h) => isToolgateEntry(h, host));
    if (mine.length === 0) {
      kept.push(group);
      continue;
    }
    removed.push(...mine);
    const rest = group.hooks.filter((h) => !isToolgateEntry(h, host));
    if (rest.length > 0) kept.push({ ...group, hooks: rest });
  }
  return { groups: kept, removed };
}

function withGroups(settings: Json, event: string, groups: unknown[]): Json {
  const hooks: Json = isObject(settings.hooks) ? { ...settings.hooks } : {};
  if (groups.length > 0) hooks[event] = groups;
  else delete hooks[event];
  const out: Json = { ...settings };
  if (Object.keys(hooks).length > 0) out.hooks = hooks;
  else delete out.hooks;
  return out;
}

/**
 * The settings with toolgate's hook installed: exactly one toolgate entry, running `command`, in its own group
 * matching every tool. Idempotent; every other key, event and hook of the user's is kept as it was.
 */
export function addHook(settings: Json, host: HookHostName, command: string): Edit {
  const spec = HOST_SETTINGS[host];
  if (settings.hooks !== undefined && !isObject(settings.hooks))
    throw new Error(`"hooks" is not an object (${JSON.stringify(settings.hooks)}); fix it by hand first`);
  const groups = groupsOf(settings, spec.event);
  if (
    settings.hooks !== undefined &&
    (settings.hooks as Json)[spec.event] !== undefined &&
    !Array.isArray((settings.hooks as Json)[spec.event])
  )
    throw new Error(`"hooks.${spec.event}" is not a list; fix it by hand first`);
  const { groups: rest, removed } = without(groups, host);
  if (removed.length === 1 && isObject(removed[0]) && removed[0].command === command) {
    const group = groups.find((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.includes(removed[0]));
    if (isObject(group) && group.matcher === spec.matcher) return { settings, outcome: 'unchanged' };
  }
  const ours = { matcher: spec.matcher, hooks: [spec.entry(command)] };
  return {
    settings: withGroups(settings, spec.event, [...rest, ours]),
    outcome: removed.length > 0 ? 'updated' : 'added',
  };
}

/** The settings without toolgate's hook (and without containers only it filled). */
export function removeHook(settings: Json, host: HookHostName): Edit {
  const { event } = HOST_SETTINGS[host];
  const { groups, removed } = without(groupsOf(settings, event), host);
  if (removed.length === 0) return { settings, outcome: 'absent' };
  return { settings: withGroups(settings, event, groups), outcome: 'removed' };
}
