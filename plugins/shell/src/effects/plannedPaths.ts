import { type Access, type CallContext, createAccess, uncertainAccess } from '@toolgate/core';
import type { Field } from '../state/expandWord.js';
import type { AccessSink } from './accessSink.js';
import type { PathScope } from './pathScope.js';
import type { PlannedChanges } from './plannedChanges.js';
import type { ShellScope } from './shellScope.js';

/**
 * Links and filled directories a command of the line creates (see `PlannedChanges`), recorded where they
 * resolve from the cwd now, and the accesses of later commands judged again through them.
 */
export class PlannedPaths {
  constructor(
    private readonly ctx: CallContext,
    private readonly scope: ShellScope,
    private readonly paths: PathScope,
    private readonly sink: AccessSink,
    readonly planned: PlannedChanges,
  ) {}

  /** Records a symlink or hard link the command creates: later paths through it are judged through its target. */
  link(link: Field, target: Field | null): void {
    const cwd = this.scope.state.cwds[0];
    if (link.uncertain !== undefined || cwd == null) return;
    const at = this.paths.resolve(
      link.value,
      link.value.startsWith('/') || link.tilde ? this.ctx.cwd : cwd,
      link.tilde,
      false,
    );
    let dest: string | null = null;
    if (target && target.uncertain === undefined && target.value !== '') {
      const r = this.paths.resolve(
        target.value,
        target.value.startsWith('/') || target.tilde ? this.ctx.cwd : cwd,
        target.tilde,
        true,
      );
      dest = r.certain ? r.real : null;
    }
    this.planned.addLink(
      at.real !== null && at.real !== at.lexical ? [at.lexical, at.real] : [at.lexical],
      dest,
    );
  }

  /** Records a directory the command fills with content it does not control (archives, clones). */
  taint(dir: Field): void {
    for (const cwd of dir.value.startsWith('/') || dir.tilde ? [this.ctx.cwd] : this.scope.state.cwds) {
      if (cwd === null || dir.uncertain !== undefined) continue;
      const r = this.paths.resolve(dir.value, cwd, dir.tilde, true);
      this.planned.addTainted(r.real !== null && r.real !== r.lexical ? [r.lexical, r.real] : [r.lexical]);
    }
  }

  /** Judges an access also where links this line creates lead. */
  through(access: Access, raw: string): void {
    for (const r of this.planned.redirections(access)) {
      if ('uncertain' in r) {
        this.sink.push(uncertainAccess(raw, access.op, access.origin, r.uncertain, access.scope));
        continue;
      }
      const followFinal = access.onLink !== true;
      const resolved = this.paths.resolve(r.through, this.ctx.cwd, false, followFinal);
      const opts = { origin: access.origin, scope: access.scope, followFinal };
      const a = createAccess(r.through, access.op, this.ctx, opts, resolved);
      a.raw = raw;
      this.sink.push(a);
    }
  }
}
