/**
 * Scan reports of the benchmark's images, shaped like sample/scans: Trivy JSON from
 * bench/vulnerability-data.ts (every field of a real finding) for most images, and the same
 * findings as Grype JSON for one image in four, so both readers are on the measured path. Image
 * `k` is `ghcr.io/acme/service-k:1.0.0`; the pods of dataset/kubernetes.ts run it by the same
 * manifest digest, so its packages and CVE rows are in use.
 */
import { digestOf, type ReportShape, trivyReport } from '../vulnerability-data.js';

export function imageRef(index: number) {
  const repository = `acme/service-${index}`;
  const image = `ghcr.io/${repository}:1.0.0`;
  return { repository, image, manifestLabel: `manifest ${image}` };
}

type TrivyReport = ReturnType<typeof trivyReport>;

const GRYPE_SEVERITY: Record<string, string> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  LOW: 'Low',
  UNKNOWN: 'Unknown',
};

/** The findings of a Trivy report, as `grype IMAGE -o json` would print them. */
function asGrype(trivy: TrivyReport, image: string) {
  const result = trivy.Results[0]!;
  const repoDigest = trivy.Metadata.RepoDigests[0]!;
  return {
    matches: result.Vulnerabilities.map((v) => ({
      vulnerability: {
        id: v.VulnerabilityID,
        dataSource: v.PrimaryURL,
        namespace: 'debian:distro:debian:12',
        severity: GRYPE_SEVERITY[v.Severity ?? 'UNKNOWN'] ?? 'Unknown',
        urls: v.References,
        cvss: [
          {
            source: 'nvd@nist.gov',
            type: 'Primary',
            version: '3.1',
            vector: v.CVSS.nvd.V3Vector,
            metrics: { baseScore: v.CVSS.nvd.V3Score },
            vendorMetadata: {},
          },
        ],
        fix:
          'FixedVersion' in v
            ? { versions: [v.FixedVersion], state: 'fixed' }
            : { versions: [], state: 'not-fixed' },
        advisories: [],
      },
      relatedVulnerabilities: [],
      matchDetails: [],
      artifact: {
        id: v.PkgID,
        name: v.PkgName,
        version: v.InstalledVersion,
        type: 'deb',
        locations: [{ path: `/var/lib/dpkg/status.d/${v.PkgName}`, layerID: v.Layer.DiffID }],
        language: '',
        licenses: ['GPL-2.0'],
        cpes: [],
        purl: v.PkgIdentifier.PURL,
      },
    })),
    source: {
      type: 'image',
      target: {
        userInput: image,
        imageID: trivy.Metadata.ImageID,
        manifestDigest: repoDigest.slice(repoDigest.indexOf('@') + 1),
        mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
        tags: [image],
        repoDigests: [repoDigest],
        architecture: 'amd64',
        os: 'linux',
      },
    },
    distro: { name: 'debian', version: '12' },
    descriptor: { name: 'grype', version: '0.82.0', timestamp: trivy.CreatedAt },
  };
}

/**
 * The report of image `index` with `packages` x `cvesPerPackage` findings; CVE numbers start at
 * `cveBase + index * findings`, so images never share a CVE row.
 */
export function scanReport(index: number, packages: number, cvesPerPackage: number, cveBase: number) {
  const ref = imageRef(index);
  const shape: ReportShape = {
    repository: ref.repository,
    tag: '1.0.0',
    packages,
    cvesPerPackage,
    cveOffset: cveBase + index * packages * cvesPerPackage,
    createdAt: '2024-11-01T00:00:00Z',
  };
  const trivy = trivyReport(shape);
  return index % 4 === 3 ? asGrype(trivy, ref.image) : trivy;
}

export { digestOf };
