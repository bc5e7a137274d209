// Options of git's diff machinery (diff, log, show, format-patch, stash show…), from `git diff -h` and
// git-diff(1) of git 2.39. `-O` reads an order file and `--output` writes a file: handlers emit those.
export const DIFF_SHORTS = 'pusz1230RaDbwWmcC?M?B?X?U?l:O:S:G:I:';
export const DIFF_LONGS =
  'patch no-patch unified? function-context raw patch-with-raw patch-with-stat numstat shortstat dirstat? cumulative ' +
  'dirstat-by-file? check summary name-only name-status stat? stat-width= stat-name-width= stat-graph-width= ' +
  'stat-count= compact-summary binary full-index color? ws-error-highlight= abbrev? src-prefix= dst-prefix= ' +
  'line-prefix= no-prefix default-prefix inter-hunk-context= output-indicator-new= output-indicator-old= ' +
  'output-indicator-context= break-rewrites? find-renames? irreversible-delete find-copies? find-copies-harder ' +
  'rename-empty follow minimal ignore-all-space ignore-space-change ignore-space-at-eol ignore-cr-at-eol ' +
  'ignore-blank-lines ignore-matching-lines= indent-heuristic patience histogram diff-algorithm= anchored= ' +
  'word-diff? word-diff-regex= color-words? color-moved? color-moved-ws= relative? text exit-code quiet ext-diff ' +
  'textconv ignore-submodules? submodule? ita-invisible-in-index ita-visible-in-index pickaxe-all pickaxe-regex ' +
  'rotate-to= skip-to= find-object= diff-filter= output= renames cc combined-all-paths dd remerge-diff ' +
  'diff-merges= no-diff-merges base ours theirs cached staged merge-base no-index no-renames';
// Revision walking and formatting (git-rev-list(1), git-log(1)).
export const LOG_LONGS =
  'max-count= skip= since= after= until= before= since-as-filter= author= committer= grep-reflog= grep= all-match ' +
  'invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings perl-regexp remove-empty merges ' +
  'no-merges min-parents= max-parents= first-parent exclude-first-parent-only not all branches? tags? remotes? ' +
  'glob= exclude= exclude-hidden= reflog alternate-refs single-worktree ignore-missing bisect stdin cherry-mark ' +
  'cherry-pick left-only right-only cherry walk-reflogs merge boundary simplify-by-decoration show-pulls ' +
  'full-history dense sparse simplify-merges ancestry-path? topo-order date-order author-date-order reverse ' +
  'no-walk? do-walk pretty? format= abbrev-commit no-abbrev-commit oneline encoding= expand-tabs? notes? ' +
  'show-notes? show-notes-by-default standard-notes show-signature relative-date date= parents children ' +
  'left-right graph show-linear-break? log-size decorate? decorate-refs= decorate-refs-exclude= ' +
  'clear-decorations source use-mailmap mailmap count timestamp in-commit-order objects objects-edge ' +
  'unpacked header';
export const LOG_SHORTS = 'qigEFPn:L:';
