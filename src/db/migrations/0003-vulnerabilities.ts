import type { Migration } from '../migrator.js';

/**
 * Scan reports and what they derive (docs/vulnerabilities-api.md), plus the EPSS and KEV feeds.
 *
 * Facts: the newest scan of each image of an account (vulnerability_images), the packages it holds
 * and its findings. Derived in the same transaction as the scan that changes them: one row per
 * package (name + version) with its counts, and one row per CVE x package x version. What depends
 * on live containers (in_use, affected workloads and clusters) is joined at read time through
 * vulnerability_image_usage, on indexed image digests, because containers change with Kubernetes
 * ingestion, not with scans.
 *
 * Account-owned tables lead every key and index with account_id (DESIGN.md 8). The feed tables are
 * global reference data (public FIRST and CISA data, the same for every tenant), keyed by CVE id.
 */
export const vulnerabilities: Migration = {
  id: '0003-vulnerabilities',
  sql: `
-- The newest scan of each image: image_key is the registry digest, or repository:tag without one.
create table vulnerability_images (
  account_id uuid not null references accounts (id),
  id uuid not null,
  image_key text not null,
  image_repo text not null,
  image_name text not null,
  image_tag text not null,
  -- '' when unknown, like inventory_containers.image_digest
  image_digest text not null,
  config_digest text not null,
  image_reference text not null,
  -- the cluster whose push brought the newest scan
  cluster_id uuid not null,
  scan_format text not null check (scan_format in ('trivy', 'grype', 'cyclonedx')),
  scanner_name text,
  scanner_version text,
  scanned_at timestamptz not null,
  first_scanned_at timestamptz not null,
  ingested_at timestamptz not null,
  packages_count integer not null,
  vulnerabilities_count integer not null,
  primary key (account_id, id),
  unique (account_id, image_key),
  foreign key (account_id, cluster_id) references clusters (account_id, id)
);
create index vulnerability_images_digest on vulnerability_images (account_id, image_digest);
create index vulnerability_images_config_digest on vulnerability_images (account_id, config_digest);
create index vulnerability_images_repo_tag on vulnerability_images (account_id, image_repo, image_tag);
create index vulnerability_images_cluster on vulnerability_images (account_id, cluster_id);

-- Which packages each image holds.
create table vulnerability_image_packages (
  account_id uuid not null,
  package_id uuid not null,
  image_id uuid not null,
  package_type text,
  purl text,
  primary key (account_id, package_id, image_id)
);
create index vulnerability_image_packages_image on vulnerability_image_packages (account_id, image_id);

-- One finding per CVE row and image, as the image's newest scan reported it.
create table vulnerability_findings (
  account_id uuid not null,
  cve_id uuid not null,
  image_id uuid not null,
  cve_name text not null,
  package_id uuid not null,
  severity text not null,
  severity_rank smallint not null,
  scanner_severity text,
  fixed_in_version text not null,
  data_source text not null,
  -- the CVE ids EPSS and KEV are looked up by: the id itself when it is a CVE, else its CVE aliases
  lookup_cves text[] not null,
  cvss_score double precision,
  cvss_version text,
  cvss_vector text,
  published_at timestamptz,
  scanned_at timestamptz not null,
  primary key (account_id, cve_id, image_id)
);
create index vulnerability_findings_image on vulnerability_findings (account_id, image_id);

-- #9: one row per package name + version of the account. Counts are of distinct vulnerabilities
-- (CVE rows of the package) by their severity.
create table vulnerability_packages (
  account_id uuid not null references accounts (id),
  id uuid not null,
  name text not null,
  version text not null,
  images_count integer not null default 0,
  critical_count integer not null default 0,
  high_count integer not null default 0,
  medium_count integer not null default 0,
  low_count integer not null default 0,
  negligible_count integer not null default 0,
  unspecified_count integer not null default 0,
  total_vulerabilities_count integer not null default 0,
  primary key (account_id, id),
  unique (account_id, name, version)
);
create index vulnerability_packages_version on vulnerability_packages (account_id, version, id);
create index vulnerability_packages_images on vulnerability_packages (account_id, images_count, id);
create index vulnerability_packages_critical on vulnerability_packages (account_id, critical_count, id);
create index vulnerability_packages_high on vulnerability_packages (account_id, high_count, id);
create index vulnerability_packages_medium on vulnerability_packages (account_id, medium_count, id);
create index vulnerability_packages_low on vulnerability_packages (account_id, low_count, id);
create index vulnerability_packages_negligible on vulnerability_packages (account_id, negligible_count, id);
create index vulnerability_packages_unspecified on vulnerability_packages (account_id, unspecified_count, id);
create index vulnerability_packages_total on vulnerability_packages (account_id, total_vulerabilities_count, id);

-- #11: one row per CVE x package x version of the account, aggregated over the images' findings.
create table vulnerability_cves (
  account_id uuid not null references accounts (id),
  id uuid not null,
  cve_name text not null,
  package_id uuid not null,
  package_name text not null,
  package_version text not null,
  severity text not null,
  severity_rank smallint not null,
  fixable boolean not null,
  fixed_in_version text not null,
  data_source text not null,
  lookup_cves text[] not null,
  -- the cluster whose push brought the newest scan reporting it
  cluster_id uuid not null,
  affected_images_count integer not null,
  -- [{image_digest, image_name, image_repo, image_tag}] of the images with the finding
  associated_images jsonb not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  -- id is derived from (cve_name, package_id) (scan-rows.ts), so the key is unique on them too
  primary key (account_id, id)
);
-- The report reads every row of the account (it has no paging), so filters need no index of their
-- own; this one serves the package counts.
create index vulnerability_cves_package on vulnerability_cves (account_id, package_id, severity_rank);

-- The live containers running each scanned image: by registry digest, by config digest (what a
-- Docker runtime reports for a locally built image), and by repository + tag when the scan
-- knows no digest. A container may match one image twice; readers count distinct values.
create view vulnerability_image_usage as
  select i.account_id, i.id as image_id, c.cluster_id, c.owner_uid
    from vulnerability_images i
    join inventory_containers c on c.account_id = i.account_id and c.image_digest = i.image_digest
   where i.image_digest <> ''
  union all
  select i.account_id, i.id, c.cluster_id, c.owner_uid
    from vulnerability_images i
    join inventory_containers c on c.account_id = i.account_id and c.image_digest = i.config_digest
   where i.config_digest <> '' and i.config_digest <> i.image_digest
  union all
  select i.account_id, i.id, c.cluster_id, c.owner_uid
    from vulnerability_images i
    join inventory_containers c
      on c.account_id = i.account_id and c.image_repo = i.image_repo and c.image_tag = i.image_tag
   where i.image_digest = '' and i.image_repo <> '';

-- FIRST EPSS scores, replaced as a whole by each import.
create table epss_scores (
  cve text primary key,
  epss double precision not null,
  percentile double precision not null
);

-- The CISA Known Exploited Vulnerabilities catalog, replaced as a whole by each import.
create table kev_entries (
  cve text primary key,
  vendor_project text,
  product text,
  vulnerability_name text,
  date_added date not null,
  short_description text,
  required_action text,
  due_date date,
  known_ransomware_campaign_use text,
  notes text,
  cwes text[] not null
);

-- The last import of each feed.
create table feed_imports (
  feed text primary key check (feed in ('epss', 'kev')),
  imported_at timestamptz not null,
  rows integer not null,
  -- EPSS model_version or KEV catalogVersion
  version text,
  -- EPSS score_date or KEV dateReleased
  published_at timestamptz,
  -- the user of an HTTP import; null for the CLI
  imported_by uuid
);
`,
};
