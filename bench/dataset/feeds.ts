/**
 * EPSS scores and a KEV catalog of a real feed's size, for the CVE numbers the bench's scan
 * reports use (vulnerability-data.ts), imported before anything is pushed as an operator keeps
 * them loaded. Without them every KEV and EPSS lookup of the findings evaluation and of the CVE
 * report ran against empty tables, and a lookup that scanned the whole catalog per row (1,250
 * entries) went unseen (docs/performance.md, "Fix 17f").
 */
import { cveName } from '../vulnerability-data.js';

/** About as many CVEs as the EPSS feed scores, and as many entries as the KEV catalog holds. */
const EPSS_SCORES = 250_000;
const KEV_ENTRIES = 1_250;
/** One CVE number in this many is known exploited: 1,250 of the first 200,000 (large's CVE rows). */
const KEV_EVERY = 160;

export function epssCsv(): string {
  const lines = ['#model_version:v2023.03.01,score_date:2024-11-01T00:00:00+0000', 'cve,epss,percentile'];
  for (let n = 0; n < EPSS_SCORES; n++) {
    // Spread over (0, 1) without a random generator, so every run scores the same CVEs alike.
    const epss = ((n * 7919) % 100_000) / 100_000 + 0.000005;
    lines.push(`${cveName(n)},${epss.toFixed(5)},${(n / EPSS_SCORES).toFixed(5)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function kevJson(): string {
  const vulnerabilities = Array.from({ length: KEV_ENTRIES }, (_, i) => ({
    cveID: cveName(i * KEV_EVERY + 7),
    vendorProject: 'Acme',
    product: `product-${i % 40}`,
    vulnerabilityName: `Acme product-${i % 40} remote code execution`,
    dateAdded: '2024-06-01',
    shortDescription: 'A crafted request lets a remote attacker run code as the service.',
    requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product.',
    dueDate: '2024-06-22',
    knownRansomwareCampaignUse: i % 9 === 0 ? 'Known' : 'Unknown',
    notes: '',
    cwes: ['CWE-78'],
  }));
  return JSON.stringify({
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: '2024.11.01',
    dateReleased: '2024-11-01T15:00:00.000Z',
    count: vulnerabilities.length,
    vulnerabilities,
  });
}
