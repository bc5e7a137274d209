import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';

// sqlite3 3.40 `sqlite3 -help`: options with a value, and flags (each also accepted with `--`).
const WITH_VALUE = new Set([
  'cmd',
  'init',
  'separator',
  'newline',
  'nullvalue',
  'mmap',
  'vfs',
  'maxsize',
  'nonce',
]);
const WITH_TWO = new Set(['lookaside', 'pagecache']);
const FLAGS = new Set(
  `append ascii bail batch box column csv deserialize echo header noheader help html interactive json line list
   markdown memtrace nofollow quote readonly safe stats table tabs version zip heap utf8 no-utf8`.split(
    /\s+/,
  ),
);

// Dot-commands that touch no file and run nothing (sqlite3 `.help`).
const DOT_HARMLESS = new Set(
  `bail binary changes databases dbconfig dbinfo dump echo eqp explain fullschema headers help indexes indices
   limit lint mode nullvalue parameter print progress prompt quit exit scanstats schema separator sha3sum show
   stats tables timeout timer width vfsinfo vfslist vfsname`.split(/\s+/),
);

/**
 * A database name as sqlite3 opens it: the shell enables URI filenames, so `file:/etc/x.db?mode=rw` is
 * `/etc/x.db` (`file://localhost/…` too); an authority other than localhost is refused by SQLite.
 */
function dbFile(name: string): Field | null {
  const m = /^file:(?:\/\/(localhost)?(?=\/))?([^?#]*)/i.exec(name);
  if (!m) return literal(name);
  try {
    const path = decodeURIComponent(m[2]!);
    return path === '' || path === ':memory:' ? null : literal(path);
  } catch {
    return literal(name);
  }
}

function database(cx: CommandContext, name: string, role: 'read' | 'write', tag: string): void {
  const f = dbFile(name);
  if (f) databaseFile(cx, f, role, tag);
}

function databaseFile(cx: CommandContext, f: Field, role: 'read' | 'write', tag: string): void {
  cx.emit(f, role, { tag });
  if (f.uncertain !== undefined) return;
  // A write goes through a rollback journal (or the WAL and its shared-memory index) created beside the
  // database and removed after (strace: db.sqlite-journal opened, written, unlinked).
  if (role === 'write')
    for (const suffix of ['-journal', '-wal', '-shm'])
      cx.emit({ ...f, value: f.value + suffix }, 'write', { tag });
}

/** A dot-command's words, as sqlite3 splits them (quotes group, backslashes escape in double quotes). */
function dotWords(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** One dot-command line (without the leading `.`). */
function dotCommand(cx: CommandContext, line: string): void {
  const [cmd = '', ...rest] = dotWords(line);
  const path = (k: number): Field | undefined => (rest[k] === undefined ? undefined : literal(rest[k]!));
  const name = cmd.toLowerCase();
  if (DOT_HARMLESS.has(name)) return;
  const files = rest.filter((w) => !w.startsWith('-'));
  if (name === 'output' || name === 'once' || name === 'log' || name === 'trace') {
    const f = files[0];
    // `.output` alone and `stdout`/`stderr`/`off` go back to the console; `-x`/`-e` open a spreadsheet or editor.
    if (rest.some((w) => /^-(x|e)$/.test(w)))
      cx.uncertain(`sqlite3 .${name} ${rest.join(' ')} starts a program`, 'write');
    else if (f?.startsWith('|')) cx.script(f.slice(1), 'sqlite3-pipe');
    else if (f && !['stdout', 'stderr', 'off'].includes(f)) cx.write(literal(f), { tag: name });
  } else if (name === 'save' || name === 'backup' || name === 'clone') {
    const f = path(rest.length > 1 ? 1 : 0);
    if (f) database(cx, f.value, 'write', name);
  } else if (name === 'restore') {
    const f = path(rest.length > 1 ? 1 : 0);
    if (f) database(cx, f.value, 'read', name);
  } else if (name === 'import') {
    const f = files[0];
    if (f?.startsWith('|')) cx.script(f.slice(1), 'sqlite3-pipe');
    else if (f) cx.read(literal(f), { tag: name });
  } else if (name === 'open') {
    const f = files[0];
    if (f) database(cx, f, 'write', name);
  } else if (name === 'shell' || name === 'system') {
    cx.script(rest.join(' '), `sqlite3-${name}`);
  } else if (name === 'read') {
    const f = files[0];
    if (f?.startsWith('|')) cx.script(f.slice(1), 'sqlite3-pipe');
    else if (f) {
      cx.read(literal(f), { tag: name });
      cx.uncertain('sqlite3 .read runs the SQL and dot-commands of a file', 'write');
    }
  } else cx.uncertain(`sqlite3 .${cmd} is not in its table (.load, .cd, .excel, .edit…)`, 'write');
}

/** SQL text: functions and statements that reach files (`readfile`, `writefile`, `ATTACH`, `VACUUM INTO`…). */
function sql(cx: CommandContext, text: string): void {
  const lower = text.toLowerCase();
  // readfile()/writefile() use fopen (plain paths); ATTACH and VACUUM INTO open databases (URI names too).
  const lit = (re: RegExp, role: 'read' | 'write', db: boolean) => {
    for (const m of text.matchAll(re)) {
      const name = m[1]!.replace(/''/g, "'");
      if (db) database(cx, name, role, 'sql');
      else cx.emit(literal(name), role, { tag: 'sql' });
    }
  };
  lit(/\breadfile\s*\(\s*'((?:[^']|'')*)'\s*\)/gi, 'read', false);
  lit(/\bwritefile\s*\(\s*'((?:[^']|'')*)'/gi, 'write', false);
  lit(/\battach\s+(?:database\s+)?'((?:[^']|'')*)'/gi, 'write', true);
  lit(/\bvacuum\s+(?:\w+\s+)?into\s+'((?:[^']|'')*)'/gi, 'write', true);
  const calls = (lower.match(/\b(readfile|writefile)\s*\(/g) ?? []).length;
  const literalCalls = (text.match(/\b(readfile|writefile)\s*\(\s*'/gi) ?? []).length;
  if (calls !== literalCalls) cx.uncertain('sqlite3 readfile/writefile of a computed name', 'write');
  if (/\battach\b(?!\s+(database\s+)?')/.test(lower))
    cx.uncertain('sqlite3 ATTACH of a computed name', 'write');
  if (/\bvacuum\b[^;]*\binto\b(?!\s+')/.test(lower))
    cx.uncertain('sqlite3 VACUUM INTO a computed name', 'write');
  // edit() starts an editor, load_extension() loads code, fsdir()/zipfile()/sqlar read the filesystem.
  const m = /\b(edit|load_extension|fsdir|zipfile|sqlar_uncompress|lines_read)\s*\(/.exec(lower);
  if (m) cx.uncertain(`sqlite3 ${m[1]}() reaches files or code`, 'write');
}

/** Runs argv SQL or a dot-command the way sqlite3 does: a leading `.` makes it a dot-command. */
function statement(cx: CommandContext, f: Field): void {
  if (f.uncertain !== undefined) {
    cx.uncertain(`sqlite3 statement is not known: ${f.uncertain}`, 'write', f.raw);
    return;
  }
  const t = f.value.trimStart();
  if (t.startsWith('.')) dotCommand(cx, t.slice(1));
  else sql(cx, t);
}

/**
 * sqlite3 DB [SQL…]: the database file is read and written (created if missing; `-readonly` only reads;
 * journals go beside it); each SQL argument, `-cmd`, and the dot-commands among them are read for the
 * files they name; `-init F` and statements from stdin are not seen (uncertain), `-safe` turns off every
 * file-reaching command (sqlite3 then refuses them).
 */
const sqlite3: CommandHandler = (cx) => {
  const args = cx.args;
  const operands: Field[] = [];
  const cmds: Field[] = [];
  let readonly = false;
  let safe = false;
  let version = false;
  for (let i = 0; i < args.length; i++) {
    const f = args[i]!;
    if (f.uncertain !== undefined || !f.value.startsWith('-') || operands.length > 0) {
      operands.push(f);
      continue;
    }
    const name = f.value.replace(/^--?/, '');
    if (name === 'readonly') readonly = true;
    if (name === 'safe') safe = true;
    if (name === 'version' || name === 'help') version = true;
    if (FLAGS.has(name)) continue;
    if (WITH_VALUE.has(name)) {
      const v = args[++i];
      if (!v) continue;
      if (name === 'cmd') cmds.push(v);
      if (name === 'init') {
        cx.read(v, { tag: 'init' });
        cx.uncertain('sqlite3 -init runs the commands of a file', 'write', v.raw);
      }
      continue;
    }
    if (WITH_TWO.has(name)) {
      i += 2;
      continue;
    }
    cx.uncertain(`sqlite3: option ${f.value} is not in its table`, 'write', f.value);
  }
  if (version && operands.length === 0) return;
  const [db, ...statements] = operands;
  if (db && db.value !== ':memory:' && db.value !== '') {
    if (db.uncertain !== undefined || !/^file:/i.test(db.value))
      databaseFile(cx, db, readonly ? 'read' : 'write', 'database');
    else database(cx, db.value, readonly ? 'read' : 'write', 'database');
  }
  if (!safe) for (const c of [...cmds, ...statements]) statement(cx, c);
  if (statements.length === 0) cx.uncertain('sqlite3 reads SQL and dot-commands from stdin', 'write');
};

export const sqliteFamily: Record<string, CommandHandler> = { sqlite3 };
