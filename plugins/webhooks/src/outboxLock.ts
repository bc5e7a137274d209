import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { ToolgateError } from '@toolgate/core';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One live owner per outbox: two senders draining the same file would deliver every event twice and race
 * each other's compaction. A lock left by a process that died is taken over (that is the restart case).
 */
export function acquireOutboxLock(path: string, dir: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let pid = Number.NaN;
    try {
      pid = Number(readFileSync(path, 'utf8').trim());
    } catch {
      /* vanished between open and read: try again */
    }
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new ToolgateError(
        'TOOLGATE_ERR_INVALID_OPTIONS',
        `webhooks(): outboxDir ${JSON.stringify(dir)} is in use by process ${pid}${pid === process.pid ? ' (this process: close() the other webhooks plugin first)' : ''}`,
        { field: 'outboxDir', pid },
      );
    }
    try {
      unlinkSync(path);
    } catch {
      /* someone else removed it first */
    }
  }
  throw new ToolgateError('TOOLGATE_ERR_IO', `webhooks(): could not take the lock ${path}`, {
    field: 'outboxDir',
  });
}

export function releaseOutboxLock(path: string): void {
  try {
    if (Number(readFileSync(path, 'utf8').trim()) === process.pid) unlinkSync(path);
  } catch {
    /* already gone */
  }
}
