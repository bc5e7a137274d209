import { DIFF_LONGS, DIFF_SHORTS, LOG_LONGS, LOG_SHORTS } from './diffOptions.js';

const LOG = `${LOG_SHORTS}${DIFF_SHORTS} ${LOG_LONGS} ${DIFF_LONGS}`;

/**
 * Complete option tables of the subcommands we model, in `optionSpec`'s notation, from `git <sub> -h` and
 * `git <sub> --git-completion-helper` of git 2.39 (checked by hand against the manual pages). An option not
 * listed here makes the call uncertain.
 */
export const SUBCOMMAND_OPTIONS: Readonly<Record<string, string>> = {
  status:
    'vsbzu?M? verbose short branch show-stash ahead-behind porcelain? long null untracked-files? ignored? ignore-submodules? column? no-renames find-renames? renames',
  commit:
    'qvF:m:c:C:st:eS?aiponzu? quiet verbose file= author= date= message= reedit-message= reuse-message= fixup= squash= reset-author trailer= signoff template= edit cleanup= status gpg-sign? all include interactive patch only no-verify verify dry-run short branch ahead-behind porcelain long null amend post-rewrite untracked-files? pathspec-from-file= pathspec-file-nul allow-empty allow-empty-message',
  'hash-object': 't:w stdin stdin-paths path= no-filters literally',
  fsck: 'v verbose unreachable dangling no-dangling tags root cache reflogs no-reflogs full no-full connectivity-only strict lost-found progress no-progress name-objects no-name-objects',
  add: 'nvipefuNA dry-run verbose interactive patch edit force update renormalize intent-to-add all ignore-removal refresh ignore-errors ignore-missing sparse chmod= pathspec-from-file= pathspec-file-nul',
  restore:
    's:SWqm23p source= staged worktree ignore-unmerged overlay quiet recurse-submodules? progress merge conflict= ours theirs patch ignore-skip-worktree-bits pathspec-from-file= pathspec-file-nul',
  switch:
    'c:C:qmdt?f create= force-create= guess discard-changes quiet recurse-submodules? progress merge conflict= detach track? force orphan= overwrite-ignore ignore-other-worktrees',
  checkout:
    'b:B:lqmdt?f23p guess overlay quiet recurse-submodules? progress merge conflict= detach track? force orphan= overwrite-ignore ignore-other-worktrees ours theirs patch ignore-skip-worktree-bits pathspec-from-file= pathspec-file-nul',
  branch:
    'vqt?u:radDmMcClfi verbose quiet track? set-upstream-to= unset-upstream color? remotes contains= no-contains= abbrev? all delete move copy list show-current create-reflog edit-description force merged= no-merged= column? sort= points-at= ignore-case recurse-submodules format= set-upstream',
  tag: 'ln?dvam:F:esu:fi list delete verify annotate message= file= edit sign cleanup= local-user= force create-reflog column? contains= no-contains= merged= no-merged= sort= points-at= format= color? ignore-case',
  push: 'vqdnfuo:46 verbose quiet repo= all branches mirror delete tags dry-run porcelain force force-with-lease? force-if-includes recurse-submodules= thin receive-pack= exec= set-upstream progress prune no-verify verify follow-tags signed? atomic push-option= ipv4 ipv6',
  pull: 'vqr?ns:X:S?aftpj?ko:46 verbose quiet progress recurse-submodules? rebase? stat log? signoff? squash commit edit cleanup= ff ff-only verify verify-signatures autostash strategy= strategy-option= gpg-sign? allow-unrelated-histories all append upload-pack= force tags prune jobs? dry-run keep depth= shallow-since= shallow-exclude= deepen= unshallow update-shallow refmap= server-option= ipv4 ipv6 negotiation-tip= show-forced-updates set-upstream summary no-rebase',
  fetch:
    'vqafmtnj:pPkuo:46 verbose quiet all set-upstream append atomic upload-pack= force multiple tags jobs= prefetch prune prune-tags recurse-submodules? dry-run write-fetch-head keep update-head-ok progress depth= shallow-since= shallow-exclude= deepen= unshallow update-shallow refmap= server-option= ipv4 ipv6 negotiation-tip= negotiate-only filter= auto-maintenance auto-gc show-forced-updates write-commit-graph stdin porcelain',
  merge:
    'nes:X:m:F:vqS? stat summary log? squash commit edit cleanup= ff ff-only rerere-autoupdate verify-signatures strategy= strategy-option= message= file= into-name= verbose quiet abort quit continue allow-unrelated-histories progress gpg-sign? autostash overwrite-ignore signoff verify no-verify',
  rebase:
    'qvnC:fmiS?x:r?s:X: onto= keep-base no-verify verify quiet verbose stat no-stat signoff committer-date-is-author-date reset-author-date ignore-whitespace whitespace= force-rebase no-ff continue skip abort quit edit-todo show-current-patch apply merge interactive rerere-autoupdate empty= autosquash gpg-sign? autostash exec= rebase-merges? fork-point strategy= strategy-option= root reschedule-failed-exec update-refs ignore-date',
  reset:
    'qpN quiet no-refresh mixed soft hard merge keep recurse-submodules? patch intent-to-add pathspec-from-file= pathspec-file-nul refresh',
  rm: 'nqfr dry-run quiet cached force ignore-unmatch sparse pathspec-from-file= pathspec-file-nul',
  mv: 'vnfk verbose dry-run force sparse',
  clean: 'qnfide:xX quiet dry-run force interactive exclude=',
  config:
    'f:let:z global system local worktree file= blob= get get-all get-regexp get-urlmatch replace-all add unset unset-all rename-section remove-section list fixed-value edit get-color get-colorbool type= bool int bool-or-int bool-or-str path expiry-date null name-only includes show-origin show-scope default=',
  'rev-parse':
    '-qS abbrev-ref? all branches? tags? remotes? glob= exclude= show-toplevel show-prefix show-cdup git-dir git-common-dir absolute-git-dir is-inside-git-dir is-inside-work-tree is-bare-repository is-shallow-repository resolve-git-dir= git-path= show-superproject-working-tree shared-index-path show-object-format? short? verify quiet symbolic symbolic-full-name since= after= until= before= default= prefix= sq sq-quote parseopt keep-dashdash stop-at-non-option stuck-long revs-only no-revs flags no-flags local-env-vars disambiguate= path-format= show-ref-format',
  clone:
    'vqnlsj:o:b:u:c:46 verbose quiet progress reject-shallow no-checkout checkout bare mirror local no-hardlinks hardlinks shared recurse-submodules? recursive? jobs= template= reference= reference-if-able= dissociate origin= branch= upload-pack= depth= shallow-since= shallow-exclude= single-branch no-tags tags shallow-submodules separate-git-dir= config= server-option= ipv4 ipv6 filter= also-filter-submodules remote-submodules sparse bundle-uri=',
  init: 'qb: template= bare shared? quiet separate-git-dir= initial-branch= object-format=',
  'ls-files':
    'ztvfcdmoiskux:X: cached deleted modified others ignored stage killed directory eol empty-directory unmerged resolve-undo exclude= exclude-from= exclude-per-directory= exclude-standard full-name recurse-submodules error-unmatch with-tree= abbrev? debug deduplicate sparse format=',
  grep: 'viwaIrEGFPnhHlLzocC:B:A:NpWf:e:qm:O? open-files-in-pager? cached no-index untracked exclude-standard recurse-submodules invert-match ignore-case word-regexp text textconv recursive max-depth= extended-regexp basic-regexp fixed-strings perl-regexp line-number column full-name files-with-matches name-only files-without-match null only-matching count color? break heading context= before-context= after-context= threads= show-function function-context and or not all-match quiet max-count=',
  blame:
    'bfnpctlsewS:C?M?L: incremental root show-stats progress score-debug show-name show-number porcelain line-porcelain show-email ignore-rev= ignore-revs-file= color-lines color-by-age minimal contents= abbrev? reverse= first-parent encoding= date=',
  apply:
    'p:N3zC:Rvq exclude= include= no-add add stat numstat summary check index intent-to-add cached unsafe-paths apply 3way build-fake-ancestor= whitespace= ignore-space-change ignore-whitespace reverse unidiff-zero reject allow-overlap verbose quiet inaccurate-eof recount directory= allow-empty',
  'cherry-pick':
    'nesm:X:S?x quit continue abort skip cleanup= no-commit edit signoff mainline= rerere-autoupdate strategy= strategy-option= gpg-sign? ff allow-empty allow-empty-message keep-redundant-commits commit',
  revert:
    'nesm:X:S? quit continue abort skip cleanup= no-commit edit signoff mainline= rerere-autoupdate strategy= strategy-option= gpg-sign? reference commit',
  describe:
    '- contains debug all tags long first-parent abbrev? exact-match candidates= match= exclude= always dirty? broken?',
  shortlog: 'cnsew? committer numbered summary email? group= format=',
  'cat-file':
    'eptsz allow-unknown-type use-mailmap mailmap batch? batch-check? batch-command? batch-all-objects buffer follow-symlinks unordered textconv filters path=',
  'ls-tree': 'drtzl long name-only name-status object-only full-name full-tree format= abbrev?',
  'for-each-ref':
    'sp shell perl python tcl count= format= color? sort= points-at= merged= no-merged= contains= no-contains= ignore-case',
  'show-ref': 'ds?q tags heads verify head dereference hash? abbrev? quiet exclude-existing?',
  archive:
    'o:vNl0123456789 format= prefix= add-file= add-virtual-file= output= worktree-attributes verbose list remote= exec=',
  'format-patch': `o:v:kpq${DIFF_SHORTS} numbered no-numbered signoff stdout cover-letter numbered-files suffix= start-number= reroll-count= filename-max-length= rfc cover-from-description= subject-prefix= output-directory= keep-subject no-binary zero-commit ignore-if-in-upstream no-stat add-header= cc= to= from? in-reply-to= attach? inline? thread? signature= base= signature-file= progress interdiff= range-diff= creation-factor= force-in-body-from encode-email-headers ${LOG_LONGS} ${DIFF_LONGS}`,
  am: 'i3qsukmcC:p:rS? interactive 3way quiet signoff utf8 keep keep-non-patch message-id keep-cr no-keep-cr scissors quoted-cr= whitespace= ignore-space-change ignore-whitespace directory= exclude= include= patch-format= reject resolvemsg= continue resolved skip abort quit show-current-patch? committer-date-is-author-date ignore-date rerere-autoupdate gpg-sign? empty= allow-empty no-verify',
  'ls-remote': 'qtho: quiet upload-pack= exec= tags heads refs get-url sort= exit-code symref server-option=',
  'show-branch':
    'arg? all remotes color? more? list no-name current sha1-name merge-base independent topo-order topics sparse date-order reflog? name',
  'check-ignore': 'qvzn quiet verbose stdin non-matching no-index index',
  'merge-base': 'a all octopus independent is-ancestor fork-point',
  'name-rev': '- name-only tags refs= exclude= all stdin annotate-stdin undefined always',
  'count-objects': 'vH verbose human-readable',
  gc: 'q quiet prune? cruft aggressive auto force keep-largest-pack',
  cherry: 'v abbrev? verbose',
  log: LOG,
  show: LOG,
  whatchanged: LOG,
  'rev-list': LOG,
  diff: `${DIFF_SHORTS} ${DIFF_LONGS}`,
  reflog: LOG,
  'range-diff': `${DIFF_SHORTS} creation-factor= no-dual-color dual-color notes? left-only right-only ${DIFF_LONGS}`,
  version: '- build-options',
  help: 'aigmwc all guides man web info config verbose external-commands aliases',
  'stash push':
    'kSpquam: keep-index staged patch quiet include-untracked all message= pathspec-from-file= pathspec-file-nul',
  'stash save': 'kSpquam: keep-index staged patch quiet include-untracked all message=',
  'stash pop': 'q index quiet',
  'stash list': `${LOG_SHORTS}${DIFF_SHORTS} ${LOG_LONGS} ${DIFF_LONGS}`,
  'stash branch': '-',
  'stash clear': '-',
  'stash create': '-',
  'stash store': 'qm: quiet message=',
  'stash show': `u${DIFF_SHORTS} include-untracked only-untracked ${DIFF_LONGS}`,
  'stash apply': 'q index quiet',
  'stash drop': 'q quiet',
  'worktree add': 'fb:B:dq force detach checkout lock reason= quiet track guess-remote orphan',
  'remote add': 'ft:m: fetch tags track= master= mirror?',
  'remote ': 'v verbose',
  'remote show': 'n',
  'remote get-url': '- push all',
  'remote remove': '-',
  'remote rm': '-',
  'remote rename': '- progress',
  'remote set-url': '- push add delete',
  'remote set-head': 'ad auto delete',
  'remote set-branches': '- add',
  'remote prune': 'n dry-run',
  'remote update': 'p prune',
  'worktree list': 'vz verbose porcelain expire=',
  'worktree remove': 'f force',
  'worktree move': 'f force',
  'worktree prune': 'nv dry-run verbose expire=',
  'worktree lock': '- reason=',
  'worktree unlock': '-',
  'worktree repair': '-',
  'submodule ': 'q quiet cached recursive',
  'submodule status': 'q quiet cached recursive',
  'submodule summary': 'qn: quiet cached files summary-limit=',
  'submodule init': 'q quiet',
  'submodule sync': 'q quiet recursive',
  'submodule deinit': 'qf quiet force all',
  'submodule update':
    'qNfj: quiet init remote no-fetch force checkout merge rebase recommend-shallow reference= depth= recursive jobs= single-branch filter= progress',
  'submodule add': 'qfb: quiet force branch= name= reference= depth=',
  'submodule absorbgitdirs': 'q quiet',
  'submodule set-branch': 'qdb: quiet default branch=',
  'submodule set-url': 'q quiet',
  'submodule foreach': 'q quiet recursive',
  'bisect start': '- term-new= term-bad= term-old= term-good= no-checkout first-parent',
  'bisect bad': '-',
  'bisect good': '-',
  'bisect new': '-',
  'bisect old': '-',
  'bisect skip': '-',
  'bisect reset': '-',
  'bisect log': '-',
  'bisect next': '-',
  'bisect replay': '-',
  'bisect visualize': `${LOG_SHORTS}${DIFF_SHORTS} ${LOG_LONGS} ${DIFF_LONGS}`,
  'bisect view': `${LOG_SHORTS}${DIFF_SHORTS} ${LOG_LONGS} ${DIFF_LONGS}`,
  'bisect terms': '- term-good term-bad',
  'bisect run': '-',
  'reflog show': LOG,
  'reflog ': LOG,
  'reflog expire':
    'n expire= expire-unreachable= rewrite updateref stale-fix dry-run verbose all single-worktree',
  'reflog delete': 'n rewrite updateref dry-run verbose',
  'reflog exists': '-',
  'notes ': '- ref=',
  'notes list': '- ref=',
  'notes show': '- ref=',
  'notes add': 'fm:F:c:C: force allow-empty message= file= reuse-message= reedit-message= ref= stripspace',
  'notes append': 'm:F:c:C: allow-empty message= file= reuse-message= reedit-message= ref= stripspace',
  'notes remove': '- ignore-missing stdin ref=',
  'notes prune': 'nv dry-run verbose ref=',
  'notes copy': 'f force stdin for-rewrite= ref=',
  'notes edit': '- allow-empty ref=',
  'notes merge': 'vqs: strategy= commit abort ref=',
  'notes get-ref': '-',
};
