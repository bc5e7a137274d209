import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/**
 * A real pseudo-terminal driven through tmux on a private server socket (so nothing else on the machine
 * is touched): start a command, read the screen, type keys.
 */
export class TmuxSession {
  private readonly socket: string;
  private readonly name = 'host';

  constructor(tag: string) {
    this.socket = `toolgate-approvals-${process.pid}-${tag}`;
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  start(command: string[], env: Record<string, string>, cwd: string): void {
    const exports = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    this.tmux(
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      '200',
      '-y',
      '60',
      '-c',
      cwd,
      ...exports,
      ...command,
    );
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', this.name);
  }

  /** Types text followed by Enter (`literal`: no key-name interpretation). */
  type(text: string): void {
    if (text !== '') this.tmux('send-keys', '-t', this.name, '-l', text);
    this.tmux('send-keys', '-t', this.name, 'Enter');
  }

  /** Sends tmux key names (`C-c`, `C-d`). */
  keys(...names: string[]): void {
    this.tmux('send-keys', '-t', this.name, ...names);
  }

  async waitFor(predicate: (screen: string) => boolean, what: string, ms = 15_000): Promise<string> {
    const end = Date.now() + ms;
    let last = '';
    while (Date.now() < end) {
      last = this.screen();
      if (predicate(last)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${last}`);
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      /* already gone: the host exited and tmux closed the session */
    }
  }
}

export async function waitForFile(file: string, marker: string, ms = 15_000): Promise<string> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      if (text.includes(marker)) return text;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${marker} in ${file}`);
}

export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}
