// Facts a process looks up once and keeps (the user database, whether bubblewrap can run here): true for the
// life of a short process such as one `toolgate hook` call. A process that serves many calls in turn (the hook
// server) clears them before each call, so each call sees what it would have seen in a process of its own.
const clearers = new Set<() => void>();

/** Registers how to forget one such cache. */
export function registerProcessCache(clear: () => void): void {
  clearers.add(clear);
}

/** Forgets every registered cache: the next lookup reads the machine again. */
export function clearProcessCaches(): void {
  for (const clear of clearers) clear();
}

/** Whether a process with this pid exists (EPERM: it does, and belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
