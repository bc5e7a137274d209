import type { Field } from '../state/expandWord.js';
import type { CommandContext } from './extractTypes.js';

function pathLike(v: string): boolean {
  return v.includes('/') || v.startsWith('~') || v.startsWith('.');
}

function sub(f: Field, value: string, offset: number): Field {
  return { ...f, value, glob: f.glob >= offset ? f.glob - offset : -1, tilde: value.startsWith('~') };
}

/**
 * A command we know nothing about: every path-like operand (contains `/`, starts with `~` or `.`, or names
 * an existing file) is treated as a write — seed 001: "safer to assume write when uncertain". Values of
 * options (`--out=/x`, `-o/x`) count too.
 */
export function unknownCommand(args: readonly Field[], cx: CommandContext): void {
  for (const f of args) {
    if (f.pipe) continue;
    if (f.uncertain !== undefined || f.under) {
      cx.write(f);
      continue;
    }
    const v = f.value;
    if (v.startsWith('-') && v.length > 1) {
      const eq = v.indexOf('=');
      if (eq !== -1) {
        const rest = sub(f, v.slice(eq + 1), eq + 1);
        if (rest.value !== '' && pathLike(rest.value)) cx.write(rest, { tag: 'option' });
      } else if (/^-[A-Za-z]./.test(v) && pathLike(v.slice(2))) {
        cx.write(sub(f, v.slice(2), 2), { tag: 'option' });
      }
      continue;
    }
    // An operand that reads like a script (`tool 'cat /etc/shadow'`) may be run as one.
    if (/\s/.test(v) && /[/;|&>`$]/.test(v)) {
      cx.uncertain(`an operand of ${cx.name} looks like a shell command`, 'write', f.raw);
      continue;
    }
    if (f.glob >= 0 || pathLike(v) || cx.exists(f)) cx.write(f);
  }
}
