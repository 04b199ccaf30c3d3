/**
 * Horizontal bars for a few counts. Drawn with SVG attributes (no style attributes, which the
 * console's Content-Security-Policy forbids); the numbers stay readable text for everyone.
 */
import { Link } from '../router.js';

export interface Bar {
  label: string;
  value: number;
  /** a view that lists what the bar counts */
  to?: string;
}

export function BarChart({ title, bars }: { title: string; bars: Bar[] }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <ul className="chart-bars">
        {bars.map((bar) => (
          <li key={bar.label} className="chart-row">
            <span className="chart-label">{bar.to ? <Link to={bar.to}>{bar.label}</Link> : bar.label}</span>
            <svg className="chart-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
              <rect x="0" y="0" height="10" width={(bar.value / max) * 100} rx="1" />
            </svg>
            <span className="chart-value">{bar.value}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
