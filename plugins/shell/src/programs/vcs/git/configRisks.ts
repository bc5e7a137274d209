/**
 * Configuration keys whose value is a program git runs (or a file that changes what it runs), grouped by
 * when git runs it. `git help config` is the source. A subcommand is uncertain when the repository's own
 * config (or `-c`) sets a key of a group the subcommand can reach: that is code from the workspace.
 */
export type RiskGroup =
  | 'always'
  | 'content'
  | 'diff'
  | 'pager'
  | 'editor'
  | 'network'
  | 'merge'
  | 'sign'
  | 'tools';

const GROUPS: readonly [RegExp, RiskGroup][] = [
  // Other config files (we read only this one) and a moved worktree change everything below.
  [/^include\.path$|^includeif\..*\.path$/, 'always'],
  [/^core\.worktree$/, 'always'],
  // A hook program asked about changed files whenever the index is refreshed.
  [/^core\.fsmonitor$/, 'content'],
  // clean/smudge filters run on file contents as they enter or leave the index.
  [/^filter\..*\.(clean|smudge|process)$/, 'content'],
  [/^diff\.external$|^diff\..*\.(command|textconv)$|^interactive\.difffilter$/, 'diff'],
  [/^core\.pager$|^pager\./, 'pager'],
  [/^core\.editor$|^sequence\.editor$/, 'editor'],
  [
    /^core\.(sshcommand|gitproxy|askpass)$|^credential\.|^credential\..*\.helper$|^remote\..*\.(uploadpack|receivepack|proxy)$|^http\..*\.?proxy$|^ssh\.variant$/,
    'network',
  ],
  [/^merge\..*\.driver$|^mergetool\.|^merge\.tool$/, 'merge'],
  [/^gpg\.program$|^gpg\..*\.program$/, 'sign'],
  [
    /^difftool\.|^diff\.tool$|^diff\.guitool$|^web\.browser$|^browser\..*\.(cmd|path)$|^man\..*\.(cmd|path)$|^sendemail\./,
    'tools',
  ],
];

/** The risk group of a config key (lower-cased section and name), or `undefined` for a data-only key. */
export function riskOf(key: string): RiskGroup | undefined {
  const k = key.toLowerCase();
  for (const [re, g] of GROUPS) if (re.test(k)) return g;
  return undefined;
}

/**
 * Values that run no program of the repository's choosing: `core.fsmonitor` as a boolean (git's own
 * daemon); `pager.<cmd>` turned off; a pager that only copies stdin (`cat`, `less`, `more`, empty = none);
 * an editor that does nothing (`true`, `:`), as agents pass to keep git from waiting for one.
 */
export function harmlessValue(key: string, value: string): boolean {
  const k = key.toLowerCase();
  const v = value.trim();
  if (k === 'core.fsmonitor') return /^(true|false|yes|no|on|off|0|1|)$/i.test(v);
  if (k === 'core.pager' || k.startsWith('pager.'))
    return (
      /^(false|no|off|0|cat|more|less( -[A-Za-z]+)*|)$/i.test(v) &&
      !(k === 'core.pager' && /^(false|no|off|0)$/i.test(v))
    );
  if (k === 'core.editor' || k === 'sequence.editor') return /^(true|:)$/.test(v);
  return false;
}
