/**
 * Dataset sizes of `npm run bench -- --size ...`. A size describes the measured account; the
 * other accounts (a second account of the same tenant, and another tenant) get a tenth of it, so
 * every query runs beside rows it must not see. The second account also serves as the "one
 * tenth" point of the CSV export's memory comparison.
 *
 * Per measured account (two clusters):
 *   resource records   = objects per push x versions (pods are re-pushed as new versions)
 *   containers         = pods x 2 (an app container and a sidecar)
 *   CVE report rows    = images x packagesPerImage x cvesPerPackage (distinct CVEs per image)
 *   packages           = images x packagesPerImage
 *   identities         = service accounts + the users and groups the bindings name
 */
export interface ClusterSize {
  serviceAccounts: number;
  bindings: number;
  namespaces: number;
  deployments: number;
  replicas: number;
  /** how many times each pod is pushed (each push a new resourceVersion, so a new record) */
  podVersions: number;
}

export interface DatasetSize {
  clusters: number;
  cluster: ClusterSize;
  images: number;
  packagesPerImage: number;
  cvesPerPackage: number;
  runtimeEvents: number;
}

export interface RunSize {
  dataset: DatasetSize;
  /** autocannon and pgbench seconds per case */
  seconds: number;
  connections: number;
}

export const SIZES = {
  small: {
    dataset: {
      clusters: 2,
      cluster: {
        serviceAccounts: 250,
        bindings: 400,
        namespaces: 10,
        deployments: 250,
        replicas: 4,
        podVersions: 2,
      },
      images: 20,
      packagesPerImage: 50,
      cvesPerPackage: 10,
      runtimeEvents: 10_000,
    },
    seconds: 3,
    connections: 16,
  },
  medium: {
    dataset: {
      clusters: 2,
      cluster: {
        serviceAccounts: 2_500,
        bindings: 4_000,
        namespaces: 50,
        deployments: 2_500,
        replicas: 4,
        podVersions: 2,
      },
      images: 200,
      packagesPerImage: 50,
      cvesPerPackage: 10,
      runtimeEvents: 100_000,
    },
    seconds: 5,
    connections: 16,
  },
  large: {
    dataset: {
      clusters: 2,
      cluster: {
        serviceAccounts: 10_000,
        bindings: 16_000,
        namespaces: 200,
        deployments: 25_000,
        replicas: 2,
        podVersions: 8,
      },
      images: 400,
      packagesPerImage: 125,
      cvesPerPackage: 4,
      runtimeEvents: 200_000,
    },
    seconds: 10,
    connections: 16,
  },
} satisfies Record<string, RunSize>;

export type SizeName = keyof typeof SIZES;

/** A tenth of `size` (at least one of everything), for the accounts that are not measured. */
export function tenth(size: DatasetSize): DatasetSize {
  const cut = (n: number) => Math.max(1, Math.round(n / 10));
  return {
    clusters: 1,
    cluster: {
      ...size.cluster,
      serviceAccounts: cut(size.cluster.serviceAccounts),
      bindings: cut(size.cluster.bindings),
      namespaces: cut(size.cluster.namespaces),
      deployments: cut(size.cluster.deployments) * size.clusters,
    },
    images: cut(size.images),
    packagesPerImage: size.packagesPerImage,
    cvesPerPackage: size.cvesPerPackage,
    runtimeEvents: cut(size.runtimeEvents),
  };
}
