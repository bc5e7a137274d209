import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, parseArgs } from '../argv.js';
import { literal, unknownOptions } from '../spec.js';
import { backupOf } from './inPlaceBackup.js';
import { sedScriptEffects } from './sedScript.js';

// GNU sed 4.9 `sed --help` (plus `-b`/`--binary`, accepted on Linux too): the complete option table.
const SED: ArgSpec = {
  short: 'efl',
  long: ['expression', 'file', 'line-length'],
  optionalShort: 'i',
  shortFlags: 'nErsuzb',
  flags: [
    'in-place',
    'quiet',
    'silent',
    'debug',
    'follow-symlinks',
    'posix',
    'regexp-extended',
    'separate',
    'sandbox',
    'unbuffered',
    'null-data',
    'zero-terminated',
    'binary',
    'help',
    'version',
  ],
};

/** `--in-place=SUFFIX` (or an abbreviation of it): parseArgs drops a flag's value, the backup needs it. */
function longInPlaceSuffix(args: readonly Field[]): string | undefined {
  for (const f of args) {
    if (f.value === '--') break;
    const m = /^--([a-z-]+)=(.*)$/s.exec(f.value);
    if (m && m[1]!.length >= 2 && 'in-place'.startsWith(m[1]!)) return m[2];
  }
  return undefined;
}

/** The script text: `-e`/`-f` pieces in order, joined by newlines as sed joins them; `null` if unknown. */
function scriptText(cx: CommandContext, p: ReturnType<typeof parseArgs>): string | null {
  const parts: string[] = [];
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-e' || o.name === '--expression') {
      if (o.value.uncertain !== undefined) {
        cx.uncertain(`the sed script is not known: ${o.value.uncertain}`, 'write', o.value.raw);
        return null;
      }
      parts.push(o.value.value);
    } else if (o.name === '-f' || o.name === '--file') {
      if (o.value.value === '-') {
        cx.uncertain('sed reads its script from stdin', 'write', o.value.raw);
        return null;
      }
      cx.read(o.value, { tag: 'script-file' });
      const content = cx.readContent(o.value, 64 * 1024);
      if ('uncertain' in content) {
        cx.uncertain(`the sed script file cannot be analysed: ${content.uncertain}`, 'write', o.value.raw);
        return null;
      }
      parts.push(content.text);
    }
  }
  return parts.join('\n');
}

/**
 * sed: the script (first operand unless `-e`/`-f`) is parsed for the files it reads and writes and the
 * commands it runs; inputs are read, or with `-i` rewritten — the link itself unless `--follow-symlinks`
 * (GNU sed renames a new file over a symlink, leaving its target alone) — with a backup if a suffix is given.
 */
const sed: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, SED);
  unknownOptions(cx, p);
  if (p.strays.length > 0 && !longInPlaceSuffix(cx.args)) cx.unknownOperands(p.strays);
  if (p.operands.length === 0 && has(p, '--help', '--version')) return;
  const fromOptions = has(p, '-e', '--expression', '-f', '--file');
  let inputs = p.operands;
  let text: string | null;
  if (fromOptions) text = scriptText(cx, p);
  else {
    const [script, ...rest] = p.operands;
    inputs = rest;
    if (!script) {
      cx.uncertain('sed without a script');
      return;
    }
    if (script.uncertain !== undefined || script.under) {
      cx.uncertain(`the sed script is not known: ${script.uncertain ?? script.raw}`, 'write', script.raw);
      text = null;
    } else text = script.value;
  }
  if (text !== null) {
    const fx = sedScriptEffects(text);
    const touches = fx.reads.length + fx.writes.length + fx.commands.length > 0 || fx.problem !== undefined;
    // --sandbox rejects r/w/e when the script is compiled: sed then stops before touching anything.
    if (!(has(p, '--sandbox') && touches)) {
      if (fx.problem) cx.uncertain(`sed script: ${fx.problem}`, 'write');
      for (const f of fx.reads) cx.read(literal(f), { tag: 'script-r' });
      for (const f of fx.writes) cx.write(literal(f), { tag: 'script-w' });
      for (const c of fx.commands) cx.script(c, 'sed-e');
    }
  }
  const optSuffix = p.opts.find((o) => o.name === '-i')?.value?.value;
  const suffix = optSuffix ?? longInPlaceSuffix(cx.args);
  const inPlace = has(p, '-i', '--in-place');
  const follow = has(p, '--follow-symlinks');
  for (const f of inputs) {
    if (f.value === '-' && f.glob === -1) continue;
    // With --follow-symlinks the write covers the read; without it the link is replaced, its target only read.
    if (!inPlace || !follow) cx.read(f);
    if (!inPlace) continue;
    cx.write(f, follow ? {} : { followFinal: false });
    if (suffix) {
      const backup = backupOf(f, suffix);
      if (backup) cx.write(backup, { tag: 'backup', followFinal: false });
      else cx.uncertain('the sed backup of a file we cannot name goes into another directory', 'write');
    }
  }
};

export const sedFamily: Record<string, CommandHandler> = { sed, gsed: sed };
