import { html, type Raw } from './html.js';

/**
 * A small horizontal bar chart as inline SVG (no script, no style attribute: the CSP allows neither), with
 * the numbers also in a list for screen readers. The largest eight categories.
 */
export function barChart(counts: Readonly<Record<string, number>>, label: string): Raw {
  const rows = Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
  if (rows.length === 0) return html`<p class="muted">None.</p>`;
  const max = Math.max(...rows.map(([, n]) => n));
  const h = 22;
  const width = 520;
  const labelW = 180;
  const bars = rows.map(([name, n], i) => {
    const w = Math.max(2, Math.round(((width - labelW - 50) * n) / max));
    const y = i * h;
    return html`<g><text x="${labelW - 6}" y="${y + 15}" text-anchor="end" class="chart-label">${name.length > 24 ? `${name.slice(0, 23)}…` : name}</text><rect x="${labelW}" y="${y + 3}" width="${w}" height="${h - 6}" class="chart-bar"></rect><text x="${labelW + w + 6}" y="${y + 15}" class="chart-value">${n}</text></g>`;
  });
  return html`<svg role="img" aria-label="${label}: ${rows.map(([k, n]) => `${k} ${n}`).join(', ')}" width="${width}" height="${rows.length * h}" viewBox="0 0 ${width} ${rows.length * h}">${bars}</svg>`;
}
