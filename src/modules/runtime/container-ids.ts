/**
 * Container ids as the inventory stores them. A sensor reports `containerd://<64 hex>` (what the
 * pod status says); inventory_containers.container_id holds the same id without its runtime
 * scheme (src/ingest/kubernetes/pod-spec.ts), and so does everything the runtime API returns, so
 * a client can go from an insight to its inventory container and back.
 *
 * @example
 *   inventoryContainerId('containerd://ab12...') // 'ab12...'
 *   runtimeNameOf('cri-o://ab12...')             // 'cri-o'
 */
import { stripScheme } from '../../ingest/kubernetes/image-ref.js';

/** Falco prints a 12-character prefix when it does not know the full id. */
export const SHORT_ID_LENGTH = 12;

export const inventoryContainerId = (raw: string): string => stripScheme(raw);

/** The runtime named by the id's scheme (`containerd`, `docker`, `cri-o`), '' without one. */
export function runtimeNameOf(raw: string): string {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw.trim())?.[1] ?? '';
}

/** A Falco short id, to be completed from the inventory when it knows the container. */
export const isShortId = (id: string): boolean => id.length <= SHORT_ID_LENGTH;
