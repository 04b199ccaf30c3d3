/**
 * The runtime event format (docs/runtime-events.md): one JSON object per NDJSON line, of type
 * `process_exec`, `file_open`, `network_connect` or `http_request`, each carrying its timestamp,
 * the container it happened in and that container's Kubernetes metadata. Defined once here; the
 * JSON Schema in schemas/runtime-event.schema.json is this value written out (a test keeps them
 * equal). Falco alerts are mapped to the same shape (falco.ts).
 *
 * @example
 *   {"type":"file_open","timestamp":"2025-03-01T10:00:00Z","container":{...},"kubernetes":{...},
 *    "process":{"pid":42,"comm":"cat"},"file":{"path":"/etc/hosts","flags":["O_RDONLY"]}}
 */
import { type Static, type TSchema, Type } from 'typebox';

const Text = (maxLength: number, options: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, maxLength, ...options });
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Id32 = Type.Integer({ minimum: 0, maximum: 4294967295 });
/** Checked further by the parser: an IPv4 or IPv6 literal. */
const Address = Text(64, { description: 'IPv4 or IPv6 address' });
const strict = { additionalProperties: false } as const;

export const ContainerSchema = Type.Object(
  {
    id: Text(256, { description: 'runtime container id as in pod status, e.g. containerd://<64 hex>' }),
    name: Text(253, { description: 'container name in the pod spec' }),
    image_name: Text(1024, { description: 'image reference, e.g. ghcr.io/shop/web:1.4.2' }),
    image_digest: Type.Optional(Type.String({ maxLength: 200, description: 'sha256:<hex>' })),
    runtime: Type.Optional(Type.String({ maxLength: 64, description: 'containerd, cri-o, docker' })),
  },
  strict,
);

export const KubernetesSchema = Type.Object(
  {
    cluster: Type.Optional(Type.String({ maxLength: 253, description: 'cluster name (informational)' })),
    namespace: Text(253),
    pod: Text(253),
    node: Type.Optional(Type.String({ maxLength: 253 })),
    workload_kind: Type.Optional(Text(64, { pattern: '^[A-Za-z][A-Za-z0-9]*$' })),
    workload_name: Type.Optional(Text(253)),
  },
  strict,
);

/** The process an event belongs to; a `process_exec` carries all of it (ExecProcessSchema). */
export const ProcessSchema = Type.Object(
  {
    pid: Id32,
    comm: Text(256, { description: 'process name (Linux comm or executable basename)' }),
    ppid: Type.Optional(Id32),
    exe: Type.Optional(Text(4096, { description: 'executable path' })),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 256 })),
    uid: Type.Optional(Id32),
    gid: Type.Optional(Id32),
  },
  strict,
);

export const ExecProcessSchema = Type.Object(
  {
    pid: Id32,
    ppid: Id32,
    comm: Text(256),
    exe: Type.Optional(Text(4096)),
    args: Type.Array(Type.String({ maxLength: 4096 }), {
      maxItems: 256,
      description: 'argv without argv[0]',
    }),
    uid: Id32,
    gid: Id32,
  },
  strict,
);

export const FALCO_PRIORITIES = [
  'emergency',
  'alert',
  'critical',
  'error',
  'warning',
  'notice',
  'informational',
  'debug',
] as const;

/** A detection another engine raised on this event (Falco's rule and priority). */
export const AlertSchema = Type.Object(
  {
    source: Text(64, { description: 'who raised it, e.g. falco' }),
    rule: Text(512),
    priority: Type.Enum(FALCO_PRIORITIES),
    tags: Type.Array(Type.String({ maxLength: 128 }), { maxItems: 64 }),
    output: Type.Optional(Type.String({ maxLength: 8192 })),
  },
  strict,
);

const envelope = {
  timestamp: Type.String({ format: 'date-time', description: 'RFC 3339' }),
  container: ContainerSchema,
  kubernetes: KubernetesSchema,
  alert: Type.Optional(AlertSchema),
};

const OPEN_FLAG = Type.String({ pattern: '^O_[A-Z_]+$', maxLength: 32 });

export const ProcessExecSchema = Type.Object(
  { type: Type.Literal('process_exec'), ...envelope, process: ExecProcessSchema },
  strict,
);

export const FileOpenSchema = Type.Object(
  {
    type: Type.Literal('file_open'),
    ...envelope,
    process: ProcessSchema,
    file: Type.Object(
      {
        path: Text(4096, { pattern: '^/' }),
        flags: Type.Array(OPEN_FLAG, { maxItems: 32, description: 'open(2) flags, e.g. O_WRONLY, O_CREAT' }),
      },
      strict,
    ),
  },
  strict,
);

export const NetworkConnectSchema = Type.Object(
  {
    type: Type.Literal('network_connect'),
    ...envelope,
    process: ProcessSchema,
    connection: Type.Object(
      {
        address: Address,
        port: Port,
        hostname: Type.Optional(Type.String({ maxLength: 253 })),
        protocol: Type.Optional(Type.Union([Type.Literal('tcp'), Type.Literal('udp')])),
        k8s_name: Type.Optional(
          Type.String({ maxLength: 253, description: 'destination workload or service' }),
        ),
        k8s_namespace: Type.Optional(Type.String({ maxLength: 253 })),
      },
      strict,
    ),
  },
  strict,
);

const HttpPeer = {
  address: Address,
  workload_kind: Type.Optional(Text(64, { pattern: '^[A-Za-z][A-Za-z0-9]*$' })),
  workload_name: Type.Optional(Text(253)),
  namespace: Type.Optional(Text(253)),
};

export const HttpRequestSchema = Type.Object(
  {
    type: Type.Literal('http_request'),
    ...envelope,
    process: Type.Optional(ProcessSchema),
    http: Type.Object(
      {
        method: Text(16, { pattern: '^[A-Z]+$' }),
        scheme: Type.Union([Type.Literal('http'), Type.Literal('https')]),
        host: Type.Optional(Type.String({ maxLength: 253 })),
        path: Text(8192, { pattern: '^/', description: 'request target: path and query string' }),
        status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
        protocol: Type.Optional(Type.String({ maxLength: 16, description: 'HTTP/1.1, HTTP/2' })),
        direction: Type.Optional(
          Type.Union([Type.Literal('outbound'), Type.Literal('inbound')], {
            description: 'outbound (default): the envelope is the client; inbound: the server',
          }),
        ),
        source: Type.Object({ ...HttpPeer, port: Type.Optional(Port) }, strict),
        destination: Type.Object(
          {
            ...HttpPeer,
            port: Port,
            hostname: Type.Optional(Type.String({ maxLength: 253 })),
            service_name: Type.Optional(Text(253)),
            service_namespace: Type.Optional(Text(253)),
          },
          strict,
        ),
        headers: Type.Optional(
          Type.Record(Type.String({ pattern: '^[a-z0-9-]{1,64}$' }), Type.String({ maxLength: 1024 }), {
            maxProperties: 32,
            additionalProperties: false,
            description: 'lowercase header names; only the headers of interest are kept',
          }),
        ),
      },
      strict,
    ),
  },
  strict,
);

export const EVENT_SCHEMAS = {
  process_exec: ProcessExecSchema,
  file_open: FileOpenSchema,
  network_connect: NetworkConnectSchema,
  http_request: HttpRequestSchema,
} as const satisfies Record<string, TSchema>;

export type EventType = keyof typeof EVENT_SCHEMAS;
export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];

export const RuntimeEventSchema = Type.Union(
  [ProcessExecSchema, FileOpenSchema, NetworkConnectSchema, HttpRequestSchema],
  {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://posture.dev/schemas/runtime-event.schema.json',
    title: 'Posture runtime event',
    description: 'One line of a runtime NDJSON push (docs/runtime-events.md).',
  },
);

export type ProcessExecEvent = Static<typeof ProcessExecSchema>;
export type FileOpenEvent = Static<typeof FileOpenSchema>;
export type NetworkConnectEvent = Static<typeof NetworkConnectSchema>;
export type HttpRequestEvent = Static<typeof HttpRequestSchema>;
export type RuntimeEvent = Static<typeof RuntimeEventSchema>;
export type ContainerMeta = Static<typeof ContainerSchema>;
export type KubernetesMeta = Static<typeof KubernetesSchema>;
export type ProcessInfo = Static<typeof ProcessSchema>;
export type RuntimeAlert = Static<typeof AlertSchema>;
export type FalcoPriority = (typeof FALCO_PRIORITIES)[number];

/** The JSON Schema document of schemas/runtime-event.schema.json (its identity first, for readers). */
export function runtimeEventJsonSchema(): Record<string, unknown> {
  const { $schema, $id, title, description, ...rest } = JSON.parse(JSON.stringify(RuntimeEventSchema));
  return { $schema, $id, title, description, ...rest };
}
