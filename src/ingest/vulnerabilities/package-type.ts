/**
 * Package ecosystems in one vocabulary: the package-URL type (`deb`, `apk`, `rpm`, `npm`,
 * `golang`, `maven`, `pypi`, `gem`, `cargo`, `nuget`, `composer`...). A purl, when the scanner
 * gives one, is the most precise source; otherwise the scanner's own type is translated with the
 * tables below. A type neither table knows is kept lower-cased rather than dropped.
 */

/** Trivy `Results[].Type`: the OS family for OS packages, the lock file or binary kind otherwise. */
const TRIVY_TYPES: Record<string, string> = {
  alpine: 'apk',
  wolfi: 'apk',
  chainguard: 'apk',
  debian: 'deb',
  ubuntu: 'deb',
  redhat: 'rpm',
  centos: 'rpm',
  rocky: 'rpm',
  alma: 'rpm',
  amazon: 'rpm',
  oracle: 'rpm',
  fedora: 'rpm',
  photon: 'rpm',
  'cbl-mariner': 'rpm',
  azurelinux: 'rpm',
  opensuse: 'rpm',
  'opensuse.leap': 'rpm',
  'opensuse.tumbleweed': 'rpm',
  'suse linux enterprise server': 'rpm',
  'suse linux enterprise micro': 'rpm',
  npm: 'npm',
  yarn: 'npm',
  pnpm: 'npm',
  bun: 'npm',
  'node-pkg': 'npm',
  gomod: 'golang',
  gobinary: 'golang',
  jar: 'maven',
  pom: 'maven',
  gradle: 'maven',
  sbt: 'maven',
  pip: 'pypi',
  pipenv: 'pypi',
  poetry: 'pypi',
  uv: 'pypi',
  'python-pkg': 'pypi',
  bundler: 'gem',
  gemspec: 'gem',
  cargo: 'cargo',
  rustbinary: 'cargo',
  nuget: 'nuget',
  'dotnet-core': 'nuget',
  'packages-props': 'nuget',
  composer: 'composer',
  'composer-vendor': 'composer',
  conan: 'conan',
  cocoapods: 'cocoapods',
  swift: 'swift',
  pub: 'pub',
  hex: 'hex',
  'conda-pkg': 'conda',
  'conda-environment': 'conda',
  julia: 'julia',
};

/** Grype `artifact.type` and Syft `syft:package:type` (the same catalogers). */
const SYFT_TYPES: Record<string, string> = {
  apk: 'apk',
  deb: 'deb',
  rpm: 'rpm',
  npm: 'npm',
  'go-module': 'golang',
  'java-archive': 'maven',
  'jenkins-plugin': 'maven',
  python: 'pypi',
  gem: 'gem',
  'rust-crate': 'cargo',
  dotnet: 'nuget',
  'php-composer': 'composer',
  'php-pecl': 'pecl',
  conan: 'conan',
  pod: 'cocoapods',
  swift: 'swift',
  'dart-pub': 'pub',
  hex: 'hex',
  'erlang-otp': 'otp',
  'github-action': 'github',
  binary: 'generic',
};

export type TypeVocabulary = 'trivy' | 'syft';

/** The type of a package URL; only that is needed here, so the rest is not parsed (hot path). */
const PURL_TYPE = /^pkg:\/*([a-zA-Z][a-zA-Z0-9.+-]*)\//;

/** The purl type of a package, from its purl when there is one, else from the scanner's type. */
export function packageType(
  purl: string | null,
  scannerType: string | null,
  vocabulary: TypeVocabulary,
): string | null {
  const fromPurl = purl ? PURL_TYPE.exec(purl)?.[1] : undefined;
  if (fromPurl) return fromPurl.toLowerCase();
  if (!scannerType) return null;
  const key = scannerType.trim().toLowerCase();
  const table = vocabulary === 'trivy' ? TRIVY_TYPES : SYFT_TYPES;
  return table[key] ?? key;
}
