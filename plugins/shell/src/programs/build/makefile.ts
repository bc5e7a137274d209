/** A rule of a makefile: its targets' prerequisites and recipe lines (tab-prefixed, continuations joined). */
export interface Rule {
  prereqs: string[];
  recipe: string[];
}

export interface Makefile {
  vars: Map<string, string>;
  rules: Map<string, Rule>;
  /** The first target that is not special (`.PHONY`) and not a pattern: what `make` alone builds. */
  defaultTarget?: string;
}

/** GNU make's built-in variables a recipe may use (`make -p -f /dev/null`); all are plain programs. */
export const BUILTIN: ReadonlyArray<[string, string]> = [
  ['CC', 'cc'],
  ['CXX', 'g++'],
  ['CPP', 'cc -E'],
  ['RM', 'rm -f'],
  ['AR', 'ar'],
  ['ARFLAGS', 'rv'],
  ['AS', 'as'],
  ['LD', 'ld'],
  ['LEX', 'lex'],
  ['YACC', 'yacc'],
  ['FC', 'f77'],
  ['MAKE', 'make'],
  ['MAKEINFO', 'makeinfo'],
  ['TEX', 'tex'],
  ['SHELL', '/bin/sh'],
];

/** Special targets that change how recipes run or are found: we do not follow them. */
const UNSUPPORTED_SPECIAL =
  /^\.(ONESHELL|SECONDEXPANSION|DEFAULT|RECIPEPREFIX|SHELLFLAGS|EXPORT_ALL_VARIABLES)$/;
const HARMLESS_SPECIAL =
  /^\.(PHONY|SILENT|SUFFIXES|PRECIOUS|INTERMEDIATE|SECONDARY|DELETE_ON_ERROR|IGNORE|NOTPARALLEL|POSIX|NOTINTERMEDIATE|LOW_RESOLUTION_TIME)$/;

/**
 * Parses the "plain" subset of a makefile: simple and recursive variable assignments (`=`, `:=`, `::=`,
 * `?=`, `+=`, with `export`/`override`), explicit rules and tab-indented recipes. Anything that makes the
 * effect depend on what we do not follow — includes, conditionals, `define`, functions, pattern and
 * target-specific rules, `SHELL`, `.ONESHELL` — returns a reason instead (the caller is then uncertain).
 */
export function parseMakefile(text: string): Makefile | { uncertain: string } {
  const vars = new Map<string, string>(BUILTIN);
  const rules = new Map<string, Rule>();
  let defaultTarget: string | undefined;
  let current: Rule[] = [];
  const lines = logicalLines(text);
  for (const raw of lines) {
    if (raw.startsWith('\t')) {
      if (current.length === 0) {
        if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
        return { uncertain: 'a recipe line outside a rule' };
      }
      for (const r of current) r.recipe.push(raw.slice(1));
      continue;
    }
    const line = stripComment(raw).trim();
    if (line === '') continue;
    const word = line.split(/\s+/)[0]!;
    if (
      /^(-?include|sinclude|define|endef|ifeq|ifneq|ifdef|ifndef|else|endif|vpath|unexport|load|-load)$/.test(
        word,
      )
    )
      return { uncertain: `makefile uses ${word}` };
    const assign =
      /^(?:(?:export|override)\s+)*([A-Za-z_][A-Za-z0-9_.-]*)\s*(\+=|\?=|:::?=|::=|:=|!=|=)\s*(.*)$/.exec(
        line,
      );
    if (assign) {
      const [, name, op, value] = assign;
      if (op === '!=') return { uncertain: `${name} != runs a shell command` };
      if (/^(SHELL|\.SHELLFLAGS|MAKEFLAGS|MAKEFILES|\.RECIPEPREFIX|MAKESHELL|MAKE|VPATH|GPATH)$/.test(name!))
        return { uncertain: `makefile sets ${name}` };
      if (op === '?=' && vars.has(name!) && !BUILTIN.some(([b]) => b === name)) continue;
      vars.set(name!, op === '+=' && vars.has(name!) ? `${vars.get(name!)} ${value}` : value!);
      current = [];
      continue;
    }
    if (/^export\s|^export$|^override\s/.test(line)) {
      current = [];
      continue;
    }
    const rule = /^([^:=]+?)\s*(::?)\s*(.*)$/.exec(line);
    if (!rule) return { uncertain: `cannot read makefile line ${JSON.stringify(line.slice(0, 60))}` };
    // make expands target and prerequisite lists as it reads them.
    const head = expandMake(rule[1]!, vars, new Map());
    if (head === null || head.includes('${')) return { uncertain: `targets ${rule[1]} are not plain` };
    const targets = head.split(/\s+/).filter((t) => t !== '');
    let rest = rule[3]!;
    if (/^[A-Za-z_][A-Za-z0-9_.-]*\s*(\+=|\?=|:?=|::=)/.test(rest))
      return { uncertain: 'target-specific variables' };
    let inline: string | undefined;
    const semi = rest.indexOf(';');
    if (semi >= 0) {
      inline = rest.slice(semi + 1);
      rest = rest.slice(0, semi);
    }
    current = [];
    for (const t of targets) {
      if (t.includes('%')) return { uncertain: `pattern rule ${t}` };
      if (UNSUPPORTED_SPECIAL.test(t)) return { uncertain: `makefile uses ${t}` };
      if (/^\.[A-Za-z]+(\.[A-Za-z]+)?$/.test(t) && !HARMLESS_SPECIAL.test(t))
        return { uncertain: `suffix or special rule ${t}` };
      if (HARMLESS_SPECIAL.test(t)) continue;
      defaultTarget ??= t;
      const r = rules.get(t) ?? { prereqs: [], recipe: [] };
      // A second recipe for the same target: make uses the last one (with a warning); we judge both.
      const deps = expandMake(rest.replace('|', ' '), vars, new Map());
      if (deps === null || deps.includes('${')) return { uncertain: `prerequisites of ${t} are not plain` };
      r.prereqs.push(...deps.split(/\s+/).filter((x) => x !== ''));
      if (inline !== undefined) r.recipe.push(inline);
      rules.set(t, r);
      current.push(r);
    }
  }
  return defaultTarget === undefined ? { vars, rules } : { vars, rules, defaultTarget };
}

/**
 * Joins continuation lines as make does. Outside recipes a backslash-newline and the blanks around it become
 * one space. In a recipe line make keeps the backslash and the newline — the shell joins them (GNU make
 * manual, "Splitting Recipe Lines") — and drops one tab at the start of the next line: `cat /etc/sha\` +
 * `<TAB>dow` runs `cat /etc/shadow`, not `cat /etc/sha dow`.
 */
function logicalLines(text: string): string[] {
  const raw = text.split(/\r?\n/);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    let line = raw[i]!;
    const recipe = line.startsWith('\t');
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < raw.length) {
      const next = raw[++i]!;
      line = recipe
        ? `${line}\n${next.startsWith('\t') ? next.slice(1) : next}`
        : `${line.slice(0, -1).replace(/[ \t]+$/, '')} ${next.replace(/^[ \t]+/, '')}`;
    }
    out.push(line);
  }
  return out;
}

/** `#` starts a comment except when escaped (`\#`); in variable values too, as in make. */
function stripComment(line: string): string {
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '#') return line.slice(0, i);
  }
  return line;
}

/**
 * Expands make variables in `text`: `$(V)`, `${V}`, `$V`, `$$`, automatic variables from `auto`. A function
 * call or substitution reference (`$(shell …)`, `$(V:.c=.o)`) returns `null`. A variable the makefile does
 * not define comes from the environment in make, which the shell sees the same way: it becomes `${V}` for
 * the shell analysis to judge.
 */
export function expandMake(
  text: string,
  vars: ReadonlyMap<string, string>,
  auto: ReadonlyMap<string, string>,
  depth = 0,
): string | null {
  if (depth > 16) return null;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '$') {
      out += c;
      continue;
    }
    const n = text[i + 1];
    if (n === undefined) return null;
    if (n === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string;
    if (n === '(' || n === '{') {
      const close = text.indexOf(n === '(' ? ')' : '}', i + 2);
      if (close < 0) return null;
      name = text.slice(i + 2, close);
      i = close;
    } else {
      name = n;
      i++;
    }
    if (!/^[A-Za-z0-9_.@<^?*+-]+$/.test(name) || name.includes('$')) return null; // functions, substitutions
    const a = auto.get(name);
    if (a !== undefined) {
      out += a;
      continue;
    }
    const v = vars.get(name);
    if (v === undefined) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return null;
      out += `\${${name}}`;
      continue;
    }
    const e = expandMake(v, vars, auto, depth + 1);
    if (e === null) return null;
    out += e;
  }
  return out;
}
