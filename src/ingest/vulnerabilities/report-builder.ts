/**
 * Collects what a reader finds and applies the model's two invariants: one package per
 * name+version, one vulnerability per id + package name + version (a report that lists the same
 * CVE for the same package twice, from two result targets or two matchers, counts it once).
 *
 * When the same vulnerability appears twice, the more severe occurrence wins (its severity, data
 * source and CVSS); fixed versions and aliases are the union of both, and a field one occurrence
 * lacks is taken from the other. Order is first appearance, so output is deterministic.
 */
import type { ScannedPackage, ScannedVulnerability, ScanReport } from './model.js';
import { severityRank } from './severity.js';

/** CVE ids are case-insensitive; feeds (EPSS, KEV) write them upper-case. */
export function normalizeVulnerabilityId(id: string): string {
  const trimmed = id.trim();
  return /^cve-/i.test(trimmed) ? trimmed.toUpperCase() : trimmed;
}

const union = (first: string[], second: string[]): string[] => [...new Set([...first, ...second])];
const packageKey = (name: string, version: string): string => `${name}\u0000${version}`;

function merge(kept: ScannedVulnerability, other: ScannedVulnerability): ScannedVulnerability {
  const [winner, loser] =
    severityRank(other.severity) > severityRank(kept.severity) ? [other, kept] : [kept, other];
  return {
    ...winner,
    aliases: union(winner.aliases, loser.aliases),
    fixedVersions: union(winner.fixedVersions, loser.fixedVersions),
    cvss: winner.cvss ?? loser.cvss,
    publishedAt: winner.publishedAt ?? loser.publishedAt,
  };
}

export class ScanReportBuilder {
  private readonly packages = new Map<string, ScannedPackage>();
  private readonly vulnerabilities = new Map<string, ScannedVulnerability>();

  addPackage(pkg: ScannedPackage): void {
    const key = packageKey(pkg.name, pkg.version);
    const existing = this.packages.get(key);
    if (!existing) {
      this.packages.set(key, { ...pkg });
      return;
    }
    existing.type ??= pkg.type;
    existing.purl ??= pkg.purl;
  }

  /** Records a vulnerability and the package it affects (listed even if the report had no package list). */
  addVulnerability(vulnerability: ScannedVulnerability, pkg: ScannedPackage): void {
    this.addPackage(pkg);
    const id = normalizeVulnerabilityId(vulnerability.id);
    const normalized: ScannedVulnerability = {
      ...vulnerability,
      id,
      aliases: [...new Set(vulnerability.aliases.map(normalizeVulnerabilityId))].filter(
        (alias) => alias !== id,
      ),
      fixedVersions: [...new Set(vulnerability.fixedVersions)],
    };
    const key = `${id}\u0000${packageKey(vulnerability.packageName, vulnerability.packageVersion)}`;
    const existing = this.vulnerabilities.get(key);
    this.vulnerabilities.set(key, existing ? merge(existing, normalized) : normalized);
  }

  build(header: Omit<ScanReport, 'packages' | 'vulnerabilities'>): ScanReport {
    return {
      ...header,
      packages: [...this.packages.values()],
      vulnerabilities: [...this.vulnerabilities.values()],
    };
  }
}
