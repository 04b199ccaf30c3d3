/** The read routes of the vulnerability area: packages (#9), facets (#10) and the CVE report (#11). */
import type { Api } from '../../http/api.js';
import { cveReportRoutes } from './cve-report-routes.js';
import type { CveReportService } from './cve-report-service.js';
import { packageRoutes } from './package-routes.js';
import type { PackageService } from './package-service.js';

export function vulnerabilityRoutes(
  app: Api,
  services: { packages: PackageService; cveReport: CveReportService },
): void {
  packageRoutes(app, services);
  cveReportRoutes(app, services);
}
