import type { AccessSink } from './accessSink.js';
import type { FieldAccesses } from './fieldAccesses.js';
import type { PathScope } from './pathScope.js';
import type { PipeFlow } from './pipeFlow.js';
import type { PlannedPaths } from './plannedPaths.js';
import type { ShellScope } from './shellScope.js';
import type { Walker } from './walker.js';

/** The collaborators of one analysis, as a command's context reaches them (see `CommandCx`). */
export interface AnalysisParts {
  readonly sink: AccessSink;
  readonly scope: ShellScope;
  readonly paths: PathScope;
  readonly fields: FieldAccesses;
  readonly planned: PlannedPaths;
  readonly pipe: PipeFlow;
  readonly walker: Walker;
  /** How deeply nested code and wrappers may go. */
  readonly maxDepth: number;
}
