import { createInterface, type Interface } from 'node:readline';
import { Observable } from 'rxjs';
import type { ApprovalAnswer, ApprovalStrategy } from '../types.js';
import { invalidOption } from './checkAnswer.js';
import { printable, renderRequest } from './renderRequest.js';

type TtyInput = NodeJS.ReadableStream & { isTTY?: boolean };
type TtyOutput = NodeJS.WritableStream & { isTTY?: boolean };

export interface TtyOptions {
  /** Where answers are read (default `process.stdin`); must be a terminal. */
  input?: TtyInput;
  /** Where the question is shown (default `process.stdout`); must be a terminal. */
  output?: TtyOutput;
  /** Environment consulted for `CI` (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * What Enter alone answers. `yes` (default): seed 002's `[Y/n/a/q]` — the capital is the default, so Enter
   * is `Y`. `ask-again`: an empty line is asked again (the question then shows `[y/n/a/q]`).
   */
  emptyAnswer?: 'yes' | 'ask-again';
}

export const TTY_QUESTION = 'Allow this operation? [Y/n/a/q] ';
const TTY_QUESTION_NO_DEFAULT = 'Allow this operation? [y/n/a/q] ';

function inCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** Seed 002's keys. An empty line is `Y` (the capital in `[Y/n/a/q]`) unless `emptyAnswer: 'ask-again'`. */
export function parseTtyAnswer(
  line: string,
  emptyAnswer: 'yes' | 'ask-again' = 'yes',
): ApprovalAnswer | undefined {
  const key = line.trim().toLowerCase();
  switch (key === '' && emptyAnswer === 'yes' ? 'y' : key) {
    case 'y':
    case 'yes':
      return {
        approved: true,
        grant: 'directory',
        by: 'tty',
        reason: 'approved at the terminal (directory)',
      };
    case 'a':
    case 'all':
      return { approved: true, grant: 'subtree', by: 'tty', reason: 'approved at the terminal (subtree)' };
    case 'n':
    case 'no':
      return { approved: false, by: 'tty', reason: 'denied by the user at the terminal' };
    case 'q':
    case 'quit':
      return { approved: false, cancelSession: true, by: 'tty', reason: 'session cancelled at the terminal' };
    default:
      return undefined;
  }
}

type Input = { kind: 'line'; text: string } | { kind: 'closed' } | { kind: 'interrupt' };

function nextInput(rl: Interface, question: string): Promise<Input> {
  return new Promise((resolve) => {
    const onClose = () => settle({ kind: 'closed' });
    // In raw mode Ctrl-C reaches readline, not the process: without a listener readline merely pauses
    // the input and the question would hang until it times out.
    const onInterrupt = () => settle({ kind: 'interrupt' });
    const settle = (input: Input) => {
      rl.off('close', onClose);
      rl.off('SIGINT', onInterrupt);
      resolve(input);
    };
    rl.once('close', onClose);
    rl.once('SIGINT', onInterrupt);
    rl.question(question, (text) => settle({ kind: 'line', text }));
  });
}

/**
 * Asks on the terminal, `[Y/n/a/q]` as seed 002: `Y` allows this call and its directory for the session,
 * `n` denies, `a` allows the directory and its subtree, `q` cancels the session. Without a terminal on both
 * stdin and stdout, or under `CI`, every request is denied. Questions are asked one at a time.
 *
 * @example
 * ```ts
 * import { approvals, tty } from '@toolgate/approvals';
 * const plugin = approvals({ strategy: tty(), timeoutMs: 60_000 });
 * ```
 */
export function tty(options: TtyOptions = {}): ApprovalStrategy {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const env = options.env ?? process.env;
  const emptyAnswer = options.emptyAnswer ?? 'yes';
  if (emptyAnswer !== 'yes' && emptyAnswer !== 'ask-again')
    throw invalidOption('tty', 'emptyAnswer', emptyAnswer, '"yes" or "ask-again"');
  const question = emptyAnswer === 'yes' ? TTY_QUESTION : TTY_QUESTION_NO_DEFAULT;
  if (typeof input?.on !== 'function') throw invalidOption('tty', 'input', input, 'a readable stream');
  if (typeof output?.write !== 'function') throw invalidOption('tty', 'output', output, 'a writable stream');
  const interactive = () => input.isTTY === true && output.isTTY === true && !inCi(env);
  // One terminal, one question at a time: concurrent calls wait their turn.
  let turn: Promise<void> = Promise.resolve();

  return {
    name: 'tty',
    notify(message) {
      if (interactive()) output.write(`${printable(message)}\n`);
    },
    ask: (request) =>
      new Observable<ApprovalAnswer>((subscriber) => {
        if (!interactive()) {
          subscriber.next({
            approved: false,
            by: 'tty',
            reason: 'approval required, but there is no interactive terminal to ask (no TTY, or CI)',
          });
          subscriber.complete();
          return undefined;
        }
        let withdrawn = false;
        let rl: Interface | undefined;
        const run = async () => {
          if (withdrawn) return;
          output.write(renderRequest(request));
          rl = createInterface({ input, output, terminal: true });
          let answer: ApprovalAnswer | undefined;
          let interrupted = false;
          while (answer === undefined) {
            const input = await nextInput(rl, question);
            if (withdrawn) return;
            if (input.kind === 'closed') {
              answer = {
                approved: false,
                by: 'tty',
                reason: 'the terminal closed (Ctrl-D) before an answer',
              };
            } else if (input.kind === 'interrupt') {
              interrupted = true;
              answer = { approved: false, by: 'tty', reason: 'interrupted (Ctrl-C) at the terminal' };
            } else {
              answer = parseTtyAnswer(input.text, emptyAnswer);
              if (answer === undefined) output.write('Please answer y, n, a or q.\n');
            }
          }
          rl.close();
          rl = undefined;
          output.write(answer.approved ? '-> allowed\n' : '-> denied\n');
          subscriber.next(answer);
          subscriber.complete();
          // Ctrl-C means what it always means: the call is denied, then the host gets its SIGINT (to stop,
          // or to handle) exactly as if no question had been on the screen.
          if (interrupted && input === process.stdin) process.kill(process.pid, 'SIGINT');
        };
        const mine = turn.then(run).catch((error: unknown) => subscriber.error(error));
        turn = mine;
        return () => {
          withdrawn = true;
          if (rl) {
            output.write('\n(question withdrawn: timed out or answered elsewhere)\n');
            rl.close();
            rl = undefined;
          }
        };
      }),
  };
}
