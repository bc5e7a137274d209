import {
  type Access,
  type NetworkAccess,
  type Op,
  type SubtreeFilter,
  uncertainAccess,
} from '@toolgate/core';
import { BudgetExceeded } from '../lex/budget.js';
import type { AccessOrder } from './unknownContents.js';

const MAX_ACCESSES = 20_000;

const filterIds = new WeakMap<SubtreeFilter, number>();
let nextFilterId = 1;
/** A number per filter object, for telling accesses apart by the filter they carry. */
function filterId(f: SubtreeFilter | undefined): number {
  if (f === undefined) return 0;
  let id = filterIds.get(f);
  if (id === undefined) {
    id = nextFilterId++;
    filterIds.set(f, id);
  }
  return id;
}

/**
 * What one analysis found: every access once, where each stands in the line (which command made it, whether
 * it may run out of order), the commands not in the table and the metacharacters of nested scripts.
 */
export class AccessSink implements AccessOrder {
  readonly accesses: Access[] = [];
  /** Commands not in the command table (their path-like operands were treated as writes). */
  readonly unknown: string[] = [];
  /** Metacharacters of nested scripts (`bash -c '$(…)'`), for the strict dialect. */
  readonly metacharacters: string[] = [];
  /** Which command of the line emitted each access (`unknownContents` ignores a command's own writes). */
  readonly commandOf = new Map<Access, number>();
  /** Accesses of commands whose order against the rest is not fixed (loop bodies, pipeline parts, `&`). */
  readonly unordered = new Set<Access>();
  /** Writes that only remove what they name (`rm`, `rmdir`): they cannot bring new names into a subtree. */
  readonly removals = new Set<Access>();
  /** Hosts the line reaches on the network, each once. */
  readonly network: NetworkAccess[] = [];
  private readonly seen = new Set<string>();
  private readonly seenHosts = new Set<string>();
  private unorderedDepth = 0;
  private commandSeq = 0;

  /** `prefix`: the origin prefix of every access (`shell`). */
  constructor(readonly prefix: string) {}

  /** Records an access once; `final`: the closing access of an analysis, exempt from the size bound. */
  push(a: Access, final = false): void {
    // The walk's filter and link-following are part of what an access means: an unfiltered walk is not a
    // duplicate of a filtered one (`find . -name x -exec cat {} ; -o -exec cat {} ;` reaches everything).
    const walk = a.scope === 'subtree' ? `\0${filterId(a.filter)}\0${a.followLinks ? 1 : 0}` : '';
    const key = `${a.op}\0${a.scope}\0${a.path}\0${a.realPath}\0${a.origin}\0${a.certain}\0${a.onLink ? 1 : 0}${walk}`;
    if (this.seen.has(key)) return;
    // A size bound beside the time bound: past it the answer is uncertain anyway.
    if (this.seen.size >= MAX_ACCESSES && !final)
      throw new BudgetExceeded(`more than ${MAX_ACCESSES} accesses`);
    this.seen.add(key);
    this.accesses.push(a);
    this.commandOf.set(a, this.commandSeq);
    if (this.unorderedDepth > 0) this.unordered.add(a);
  }

  /** Records a host the line reaches, once (a `certain` reach without a host is made uncertain). */
  reach(n: NetworkAccess): void {
    const certain = n.certain && typeof n.host === 'string' && n.host !== '';
    const key = `${n.method}\0${n.scheme}\0${n.host}\0${n.port}\0${n.origin}\0${certain}\0${n.raw}\0${n.reason}`;
    if (this.seenHosts.has(key)) return;
    if (this.seenHosts.size >= MAX_ACCESSES) throw new BudgetExceeded(`more than ${MAX_ACCESSES} hosts`);
    this.seenHosts.add(key);
    this.network.push({ ...n, certain });
  }

  /** An access that cannot be known, with its origin after the prefix (`redirect`, `cat:argv`). */
  uncertain(raw: string, op: Op, origin: string, reason: string): void {
    this.push(uncertainAccess(raw || '?', op, `${this.prefix}:${origin}`, reason));
  }

  /** The next accesses belong to another command of the line. */
  nextCommand(): void {
    this.commandSeq++;
  }

  /** Runs `fn` as code whose commands may run before or after the others (a loop, a pipeline, `&`). */
  unorderedRun(fn: () => void): void {
    this.unorderedDepth++;
    try {
      fn();
    } finally {
      this.unorderedDepth--;
    }
  }

  /** Notes a command not in the table, once. */
  unknownCommand(name: string): void {
    if (!this.unknown.includes(name)) this.unknown.push(name);
  }

  addMetacharacters(found: readonly string[]): void {
    for (const m of found) if (!this.metacharacters.includes(m)) this.metacharacters.push(m);
  }
}
