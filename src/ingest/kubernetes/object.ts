/**
 * One pushed Kubernetes object, checked and reduced to what Posture stores about it. Everything
 * a record needs is validated here, before any write, so a push is refused as a whole (400 with
 * the item's position, kind and name) rather than stored in part.
 *
 * Secrets are stored without their values: `data`, `stringData` and the last-applied annotation
 * (which repeats them) are dropped before the object is kept.
 */
import type { ValidationCode, ValidationDetail } from '../../http/errors.js';
import { parseTime } from '../../http/time.js';
import { entityTypeOf } from './entity-type.js';
import { imageDigestsOf } from './pod-spec.js';
import type { PushedItem, WatchEventType } from './read-push.js';

export interface OwnerRef {
  uid: string;
  kind: string;
  name: string;
}

export interface KubeObject {
  position: string;
  event: WatchEventType;
  /** `<uid>_<resourceVersion>` */
  id: string;
  uid: string;
  resourceVersion: string;
  kind: string;
  apiVersion: string;
  name: string;
  /** '' for cluster-scoped objects */
  namespace: string;
  createdAt: string | null;
  /** the controller ownerReference */
  owner: OwnerRef | null;
  entityType: string;
  /** the object as stored */
  raw: Record<string, unknown>;
  rawText: string;
  imageDigests: string[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
const API_VERSION = /^(?:[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\/)?v[0-9a-z]{1,20}$/;
/** uids never hold `_`: the record id `<uid>_<resourceVersion>` splits at the first one. */
const UID = /^[A-Za-z0-9][A-Za-z0-9.:-]{0,127}$/;
const RESOURCE_VERSION = /^[\x21-\x7e]{1,128}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** JSON escapes PostgreSQL's jsonb refuses: NUL and unpaired surrogates (not preceded by a `\\`). */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/**
 * Kubernetes objects nest a few dozen levels at most (a CRD's schema included). A deeper value
 * made JSON.stringify below overflow the stack (a 500), and PostgreSQL's jsonb parser has a
 * stack bound of its own, so it is refused as the client's error.
 */
const MAX_NESTING = 256;

/** Whether a parsed JSON value nests deeper than `limit`, walked without recursion. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [current, depth] = next;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const inner of Object.values(current)) pending.push([inner, depth + 1]);
  }
  return false;
}

class Invalid extends Error {
  constructor(
    readonly code: ValidationCode,
    message: string,
  ) {
    super(message);
  }
}

function text(value: unknown, path: string, max: number, required = true): string {
  if (value === undefined || value === null || value === '') {
    if (required) throw new Invalid('required', `${path} is required`);
    return '';
  }
  if (typeof value !== 'string') throw new Invalid('invalid_type', `${path} must be a string`);
  if (value.length > max) throw new Invalid('out_of_range', `${path} is longer than ${max} characters`);
  return value;
}

function matching(value: string, pattern: RegExp, path: string): string {
  if (!pattern.test(value))
    throw new Invalid('invalid_format', `${path} "${value.slice(0, 80)}" is not valid`);
  return value;
}

/** Strict RFC 3339 (no relative forms, no 2026-02-30), as ISO text. */
function rfc3339(value: string, path: string): string {
  try {
    if (!RFC3339.test(value)) throw new Error('not RFC 3339');
    return parseTime(value, path).toISOString();
  } catch {
    throw new Invalid('invalid_format', `${path} must be an RFC 3339 time`);
  }
}

function controllerOwner(metadata: Json): OwnerRef | null {
  const refs = metadata.ownerReferences;
  if (refs === undefined || refs === null) return null;
  if (!Array.isArray(refs)) throw new Invalid('invalid_type', 'metadata.ownerReferences must be an array');
  let owner: OwnerRef | null = null;
  refs.forEach((ref, index) => {
    const path = `metadata.ownerReferences[${index}]`;
    if (!isObject(ref)) throw new Invalid('invalid_type', `${path} must be an object`);
    const parsed = {
      uid: matching(text(ref.uid, `${path}.uid`, 128), UID, `${path}.uid`),
      kind: matching(text(ref.kind, `${path}.kind`, 63), KIND, `${path}.kind`),
      name: text(ref.name, `${path}.name`, 253),
    };
    if (ref.controller === true && owner === null) owner = parsed;
  });
  return owner;
}

function checkPod(object: Json): void {
  const spec = object.spec;
  if (!isObject(spec)) throw new Invalid('required', 'spec is required for a Pod');
  for (const list of ['initContainers', 'containers'] as const) {
    const containers = spec[list];
    if (containers === undefined && list === 'initContainers') continue;
    if (!Array.isArray(containers)) throw new Invalid('invalid_type', `spec.${list} must be an array`);
    containers.forEach((container, index) => {
      const path = `spec.${list}[${index}]`;
      if (!isObject(container)) throw new Invalid('invalid_type', `${path} must be an object`);
      text(container.name, `${path}.name`, 253);
      text(container.image, `${path}.image`, 4096, false);
    });
  }
  const status = object.status;
  if (status === undefined || status === null) return;
  if (!isObject(status)) throw new Invalid('invalid_type', 'status must be an object');
  for (const list of ['initContainerStatuses', 'containerStatuses'] as const) {
    const statuses = status[list];
    if (statuses === undefined || statuses === null) continue;
    if (!Array.isArray(statuses)) throw new Invalid('invalid_type', `status.${list} must be an array`);
    statuses.forEach((entry, index) => {
      const path = `status.${list}[${index}]`;
      if (!isObject(entry)) throw new Invalid('invalid_type', `${path} must be an object`);
      text(entry.name, `${path}.name`, 253);
      for (const field of ['containerID', 'image', 'imageID'] as const) {
        text(entry[field], `${path}.${field}`, 4096, false);
      }
    });
  }
}

function redactSecret(object: Json): Json {
  const { data: _data, stringData: _stringData, ...rest } = object;
  const metadata = rest.metadata as Json;
  if (!isObject(metadata.annotations) || !(LAST_APPLIED in metadata.annotations)) return rest;
  const { [LAST_APPLIED]: _applied, ...annotations } = metadata.annotations;
  return { ...rest, metadata: { ...metadata, annotations } };
}

function describe(object: Json): string {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const kind = typeof object.kind === 'string' && object.kind ? object.kind : 'object';
  const name = typeof metadata.name === 'string' && metadata.name ? metadata.name : '(unnamed)';
  const namespace =
    typeof metadata.namespace === 'string' && metadata.namespace ? `${metadata.namespace}/` : '';
  return `${kind} ${namespace}${name}`.slice(0, 300);
}

/** The stored form of a pushed item, or the validation detail that refuses the push. */
export function toKubeObject(item: PushedItem): KubeObject | ValidationDetail {
  const object = item.object as Json;
  try {
    const kind = matching(text(object.kind, 'kind', 63), KIND, 'kind');
    if (kind.endsWith('List')) throw new Invalid('invalid_value', 'a List cannot be nested in another');
    const apiVersion = matching(text(object.apiVersion, 'apiVersion', 253), API_VERSION, 'apiVersion');
    if (!isObject(object.metadata)) throw new Invalid('required', 'metadata is required');
    const metadata = object.metadata;
    const name = text(metadata.name, 'metadata.name', 253);
    const namespace = text(metadata.namespace, 'metadata.namespace', 63, false);
    const uid = matching(text(metadata.uid, 'metadata.uid', 128), UID, 'metadata.uid');
    const resourceVersion = matching(
      text(metadata.resourceVersion, 'metadata.resourceVersion', 128),
      RESOURCE_VERSION,
      'metadata.resourceVersion',
    );
    const created = text(metadata.creationTimestamp, 'metadata.creationTimestamp', 40, false);
    const createdAt = created ? rfc3339(created, 'metadata.creationTimestamp') : null;
    const owner = controllerOwner(metadata);
    if (nestsDeeperThan(object, MAX_NESTING)) {
      throw new Invalid('invalid_value', `nests deeper than ${MAX_NESTING} levels`);
    }
    if (kind === 'Pod') checkPod(object);
    const raw = kind === 'Secret' ? redactSecret(object) : object;
    const rawText = JSON.stringify(raw);
    if (UNSTORABLE_ESCAPE.test(rawText)) {
      throw new Invalid(
        'invalid_value',
        'holds a NUL character or an unpaired surrogate, which cannot be stored',
      );
    }
    return {
      position: item.position,
      event: item.event,
      id: `${uid}_${resourceVersion}`,
      uid,
      resourceVersion,
      kind,
      apiVersion,
      name,
      namespace,
      createdAt,
      owner,
      entityType: entityTypeOf(kind),
      raw,
      rawText,
      imageDigests: imageDigestsOf(raw),
    };
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    return {
      code: error.code,
      field: item.position,
      message: `${describe(object)}: ${error.message}`,
      param: 'body',
    };
  }
}

export const isKubeObject = (value: KubeObject | ValidationDetail): value is KubeObject => 'uid' in value;
