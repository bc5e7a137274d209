import { attacksCodeInData } from './attacksCodeInData.js';
import { attacksOptions } from './attacksOptions.js';
import { attacksShellState } from './attacksShellState.js';
import { everydayFiles } from './everydayFiles.js';
import { everydayTools } from './everydayTools.js';
import { networkInputs } from './networkInputs.js';
import { shellSyntax } from './shellSyntax.js';

/**
 * Every command the oracle runs. `@WS@`, `@HOME@`, `@OUT@` (stands for /etc: outside the workspace and
 * home) and `@ROOT@` are replaced with the scratch tree's paths; the command runs with cwd = workspace.
 */
export const corpusGroups: Record<string, string[]> = {
  everydayFiles,
  everydayTools,
  shellSyntax,
  attacksShellState,
  attacksCodeInData,
  attacksOptions,
  networkInputs,
};

export const corpus: string[] = Object.values(corpusGroups).flat();
