/**
 * What an argument's name says about its value.
 * - `path`: the name says it is a path (`path`, `file_path`, `source_filepath`, `notebook_path`, `paths`, `cwd`…).
 * - `end`: one end of a transfer (`source`, `src`, `dest`, `destination`, `target`): a path in a file tool,
 *   possibly a word elsewhere (`target: "prod"`).
 * - `weak`: sometimes a path (`from`, `to`, `output`, `input`): a path in a file tool, a path elsewhere only
 *   when the value looks like one.
 * - `maybe`: starts like a path but may be about one (`file_to_read`, `path_list`, but also `file_type`):
 *   a path only when the value looks like one, in any tool.
 * - `none`: not a path by name.
 */
export type PathKeyKind = 'path' | 'end' | 'weak' | 'maybe' | 'none';

/** Last words that make a name a path: `image_path`, `sourceFile`, `target_dir`, `destination_filepath`. */
const PATH_WORDS = new Set([
  'path',
  'paths',
  'filepath',
  'filepaths',
  'pathname',
  'file',
  'files',
  'filename',
  'filenames',
  'dir',
  'dirs',
  'directory',
  'directories',
  'folder',
  'folders',
  'cwd',
  'workdir',
  'root',
  'roots',
]);
const NAME_OWNERS = new Set(['file', 'dir', 'directory', 'folder']);
const END_WORDS = new Set(['source', 'sources', 'src', 'dest', 'destination', 'destinations', 'target']);
const WEAK_WORDS = new Set(['from', 'to', 'output', 'out', 'input']);
/** Whole names that are a working directory or a path although their last word is not one. */
const WHOLE = new Set(['workingdirectory', 'cwd', 'workdir', 'dirpath', 'savepath', 'outputpath']);

// Argument names repeat on every call (`path`, `content`): split once each, bounded so hostile names cannot
// grow it. The arrays are frozen because they are shared.
const wordsCache = new Map<string, readonly string[]>();
const WORDS_CACHE_MAX = 4096;

/** The words of an argument name: `sourceFilePath` → source, file, path; `dest-dir` → dest, dir. */
export function keyWords(key: string): readonly string[] {
  let words = wordsCache.get(key);
  if (words !== undefined) return words;
  words = Object.freeze(
    key
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w !== ''),
  );
  if (wordsCache.size < WORDS_CACHE_MAX) wordsCache.set(key, words);
  return words;
}

// Argument names are few and repeat on every call: judged once each. Bounded so hostile names cannot grow it.
const cache = new Map<string, PathKeyKind>();
const CACHE_MAX = 4096;

/**
 * What an argument name says about its value, by its words: the last word (`*_path`, `*_file`, `*_dir`), a
 * first word naming a transfer end (`source*`, `dest*`), or a bare `from`/`to`.
 *
 * @example
 * ```ts
 * import { pathKeyKind } from '@toolgate/core';
 * pathKeyKind('source_filepath'); // 'path'
 * pathKeyKind('target'); // 'end'
 * pathKeyKind('content'); // 'none'
 * ```
 */
export function pathKeyKind(key: string): PathKeyKind {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const kind = judge(keyWords(key));
  if (cache.size < CACHE_MAX) cache.set(key, kind);
  return kind;
}

function judge(words: readonly string[]): PathKeyKind {
  const last = words.at(-1);
  const first = words[0];
  if (last === undefined || first === undefined) return 'none';
  if (WHOLE.has(words.join(''))) return 'path';
  if (PATH_WORDS.has(last)) return 'path';
  // `file_name`, `dir_name`, `folder_names` — but not `user_name`.
  const before = words.at(-2);
  if ((last === 'name' || last === 'names') && before !== undefined && NAME_OWNERS.has(before)) return 'path';
  if (words.length === 1 && END_WORDS.has(first)) return 'end';
  if (words.length === 1 && WEAK_WORDS.has(first)) return 'weak';
  // `source_location`, `destination_uri` are ends; `source_code`, `target_language` are not paths.
  if (END_WORDS.has(first) && (last === 'location' || last === 'uri')) return 'end';
  // `file_to_read`, `filePathList`, `dir_for_output`: about paths, or about something else (`file_type`).
  if (PATH_WORDS.has(first) || words.slice(0, -1).some((w) => PATH_WORDS.has(w) && w !== 'root'))
    return 'maybe';
  return 'none';
}

/** Argument names whose text is data, never a path, even when it looks like one (`content: "/etc/x"`). */
const DATA_WORDS = new Set([
  'content',
  'contents',
  'text',
  'body',
  'data',
  'message',
  'messages',
  'description',
  'prompt',
  'query',
  'pattern',
  'patterns',
  'regex',
  'glob',
  'old',
  'new',
  'string',
  'str',
  'comment',
  'title',
  'summary',
  'note',
  'notes',
  'diff',
  'patch',
  'code',
  'source_code',
]);

const dataCache = new Map<string, boolean>();

/** Whether a name holds data text (so a path-shaped value under it is not a path). */
export function isDataKey(key: string): boolean {
  let data = dataCache.get(key);
  if (data !== undefined) return data;
  const words = keyWords(key);
  const last = words.at(-1);
  data = last !== undefined && (DATA_WORDS.has(last) || DATA_WORDS.has(words.join('_')));
  if (dataCache.size < CACHE_MAX) dataCache.set(key, data);
  return data;
}
