import { ToolgateError } from '@toolgate/core';
import { DurableFile, type DurableFileOptions } from './durableFile.js';

type Settings = Omit<DurableFileOptions, 'onError'>;
type ErrorSink = DurableFileOptions['onError'];

interface Entry {
  trail: DurableFile;
  key: string;
  sinks: Set<ErrorSink>;
}

// One writer per file per process: two writers would each track their own size and last hash, so rotation
// would overshoot and the chain would fork. Guards built per agent on one trail share its writer.
const trails = new Map<string, Entry>();

export interface TrailHandle {
  trail: DurableFile;
  /** Idempotent; the file is closed when its last user releases it. */
  release(): void;
}

export function openTrail(settings: Settings, onError: ErrorSink): TrailHandle {
  const key = JSON.stringify([
    settings.maxSize,
    settings.keep,
    settings.durability,
    settings.chain,
    settings.maxBuffered,
    settings.retryMs,
    settings.compress,
    settings.lockWaitMs,
  ]);
  let entry = trails.get(settings.file);
  if (entry && entry.key !== key) {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `auditLog: option file ${JSON.stringify(settings.file)} is already open in this process with other maxSize, keep, durability, chain, maxBuffered, retryMs or compress; use the same settings or another file`,
      { field: 'file' },
    );
  }
  if (!entry) {
    // The caller's sink is registered before the file is opened, so a failure to open is reported too.
    const sinks = new Set<ErrorSink>([onError]);
    const trail = new DurableFile({
      ...settings,
      onError: (error, what, counters) => {
        for (const sink of sinks) sink(error, what, counters);
      },
    });
    entry = { trail, key, sinks };
    trails.set(settings.file, entry);
  }
  const current = entry;
  current.sinks.add(onError);
  let released = false;
  return {
    trail: current.trail,
    release() {
      if (released) return;
      released = true;
      current.sinks.delete(onError);
      if (current.sinks.size === 0) {
        current.trail.close();
        if (trails.get(settings.file) === current) trails.delete(settings.file);
      }
    },
  };
}
