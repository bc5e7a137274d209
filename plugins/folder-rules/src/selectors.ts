/** One step of a selector: a key, and whether its value is a list whose every element is walked. */
interface Step {
  key: string;
  each: boolean;
}

/** A compiled selector (`ops[].path`). */
export interface Selector {
  text: string;
  steps: readonly Step[];
}

/** `name`, `name[]`, joined by dots; a name holds no `.`, `[` or `]`. */
export const SELECTOR = /^[^.[\]\s]+(?:\[\])?(?:\.[^.[\]\s]+(?:\[\])?)*$/;

/** Compiles `ops[].path`; undefined when it is not a selector (the loaders report that with file and field). */
export function compileSelector(text: string): Selector | undefined {
  if (!SELECTOR.test(text)) return undefined;
  const steps = text.split('.').map((part) => {
    const each = part.endsWith('[]');
    return { key: each ? part.slice(0, -2) : part, each };
  });
  return { text, steps };
}

/** A value a selector reaches: a path candidate, or why the arguments do not have the declared shape. */
export interface Selected {
  where: string;
  value: unknown;
  /** Set when the shape differs from the declaration (`ops` is not a list): the caller fails closed. */
  mismatch?: string;
}

/**
 * Every value a selector reaches in a call's arguments. A missing key reaches nothing; a list at the end is
 * a list of paths; a value of the wrong shape on the way (a string where `ops[]` wants a list) is a mismatch.
 */
export function select(args: Record<string, unknown>, selector: Selector): Selected[] {
  const out: Selected[] = [];
  const walk = (value: unknown, where: string, i: number): void => {
    if (i === selector.steps.length) {
      if (Array.isArray(value)) {
        for (const [j, v] of value.entries()) out.push({ where: `${where}[${j}]`, value: v });
      } else if (value !== undefined && value !== null) out.push({ where, value });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      out.push({ where, value, mismatch: `expected an object at ${where || '(args)'}` });
      return;
    }
    const step = selector.steps[i]!;
    if (!Object.hasOwn(value, step.key)) return;
    const next = (value as Record<string, unknown>)[step.key];
    const at = where === '' ? step.key : `${where}.${step.key}`;
    if (next === undefined || next === null) return;
    if (!step.each) {
      walk(next, at, i + 1);
      return;
    }
    if (!Array.isArray(next)) {
      out.push({ where: at, value: next, mismatch: `expected a list at ${at}` });
      return;
    }
    for (const [j, v] of next.entries()) walk(v, `${at}[${j}]`, i + 1);
  };
  walk(args, '', 0);
  return out;
}
