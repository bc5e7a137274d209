import { type Stamp, stampOf } from './stamp.js';

/** What one session knows: the stamp of each file as the agent last saw it. */
export interface SessionFiles {
  /** Real path → the file as the agent last read (or wrote) it. */
  seen: Map<string, Stamp>;
  /**
   * Files the agent was allowed to write whose new stamp is not known yet: a host that does not wrap the tool
   * (a coding assistant's hook) never reports when the write ended. Stamped at the session's next call.
   */
  written: Set<string>;
}

// Namespaced by plugin name: `state.session` is shared by every plugin of the guard.
const KEY = 'filetime';

export function sessionFiles(session: Map<string, unknown>): SessionFiles {
  let files = session.get(KEY) as SessionFiles | undefined;
  if (files === undefined) {
    files = { seen: new Map(), written: new Set() };
    session.set(KEY, files);
  }
  return files;
}

/** Records the file at `path` as the agent sees it now (or forgets it when it is gone). */
export function remember(files: SessionFiles, path: string): void {
  files.written.delete(path);
  const stamp = stampOf(path);
  if (stamp) files.seen.set(path, stamp);
  else files.seen.delete(path);
}
