/** A plain text table: the widest cell sets each column; long cells are cut with an ellipsis. */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  maxWidth = 48,
): string {
  const cut = (s: string) => (s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s);
  const cells = [header, ...rows].map((r) => r.map(cut));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    line(cells[0] ?? []),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n');
}
