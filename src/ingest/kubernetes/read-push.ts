/**
 * What a Kubernetes push holds, detected from its content: a List (`kubectl get -o json`, or a
 * typed list such as PodList whose items carry no kind), a single object, a JSON array, or a
 * stream of watch events `{"type": "ADDED|MODIFIED|DELETED", "object": {...}}` (NDJSON or
 * concatenated). Every item keeps a position (`items[3]`, `line 7`) for error messages.
 * BOOKMARK and ERROR events carry no object state and are counted as ignored.
 *
 * @example
 *   readKubernetesPush('{"kind":"List","items":[{"kind":"Pod",...}]}')
 *   // { format: 'list', received: 1, ignored: 0, items: [{ position: 'items[0]', event: 'ADDED', object }] }
 */
import type { ValidationDetail } from '../../http/errors.js';
import { readJsonValues } from '../json-values.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
const OBJECT_EVENTS = new Set<string>(['ADDED', 'MODIFIED', 'DELETED']);
const IGNORED_EVENTS = new Set<string>(['BOOKMARK', 'ERROR']);

export interface PushedItem {
  position: string;
  event: WatchEventType;
  object: unknown;
}

export interface KubernetesPush {
  format: 'list' | 'object' | 'stream';
  /** items the body held, ignored events included */
  received: number;
  ignored: number;
  items: PushedItem[];
  /** structural problems (an item that is no object, an unknown event type) */
  problems: ValidationDetail[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isWatchEvent = (value: Json) =>
  typeof value.type === 'string' && 'object' in value && !('apiVersion' in value) && !('metadata' in value);

const isList = (value: Json) =>
  Array.isArray(value.items) &&
  (typeof value.kind === 'string' ? value.kind.endsWith('List') : !('metadata' in value));

function join(prefix: string, position: string): string {
  return prefix ? `${prefix} ${position}` : position;
}

export function readKubernetesPush(text: string): KubernetesPush {
  const { stream, values } = readJsonValues(text);
  const push: KubernetesPush = { format: 'object', received: 0, ignored: 0, items: [], problems: [] };
  const problem = (field: string, message: string, code: ValidationDetail['code'] = 'invalid_type') =>
    push.problems.push({ code, field, message, param: 'body' });

  const addObject = (position: string, event: WatchEventType, object: unknown) => {
    push.received++;
    if (!isObject(object)) problem(position, 'must be a Kubernetes object (a JSON object)');
    else push.items.push({ position, event, object });
  };

  const addEvent = (position: string, value: Json) => {
    const type = value.type as string;
    if (IGNORED_EVENTS.has(type)) {
      push.received++;
      push.ignored++;
    } else if (OBJECT_EVENTS.has(type)) {
      addObject(position, type as WatchEventType, value.object);
    } else {
      push.received++;
      problem(position, `event type "${type}" is not ADDED, MODIFIED, DELETED or BOOKMARK`, 'invalid_value');
    }
  };

  const addList = (prefix: string, list: Json) => {
    // Typed lists (PodList from the API server) leave kind and apiVersion out of their items.
    const itemKind = typeof list.kind === 'string' && list.kind !== 'List' ? list.kind.slice(0, -4) : '';
    const apiVersion = typeof list.apiVersion === 'string' ? list.apiVersion : '';
    (list.items as unknown[]).forEach((item, index) => {
      const position = join(prefix, `items[${index}]`);
      if (isObject(item) && isWatchEvent(item)) {
        addEvent(position, item);
      } else if (isObject(item) && itemKind && item.kind === undefined) {
        addObject(position, 'ADDED', { kind: itemKind, apiVersion, ...item });
      } else {
        addObject(position, 'ADDED', item);
      }
    });
  };

  const addValue = (prefix: string, value: unknown) => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        const position = join(prefix, `[${index}]`);
        if (isObject(item) && isWatchEvent(item)) addEvent(position, item);
        else addObject(position, 'ADDED', item);
      });
    } else if (isObject(value) && isWatchEvent(value)) {
      addEvent(prefix || 'body', value);
    } else if (isObject(value) && isList(value)) {
      addList(prefix, value);
    } else {
      addObject(prefix || 'body', 'ADDED', value);
    }
  };

  if (stream) {
    push.format = 'stream';
    for (const { value, line } of values) addValue(`line ${line}`, value);
  } else {
    const [only] = values;
    const value = only?.value;
    push.format = Array.isArray(value) || (isObject(value) && isList(value)) ? 'list' : 'object';
    addValue('', value);
  }
  return push;
}
