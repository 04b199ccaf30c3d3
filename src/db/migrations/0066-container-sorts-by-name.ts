import type { Migration } from '../migrator.js';

/**
 * The containers' indexes of the keys many containers share lead with the key and then the name,
 * so that a page filtered by one value of such a key, in the list's default order by name, is read
 * in order from the key's own range (docs/performance.md, "Fix 78"). Their index led with the key
 * and then the id (0015, for the sort by that key): filtered by `image_repo` of the 100,000
 * sidecars of the large benchmark account, which are all named `proxy`, the page walked the name
 * index past the 128,136 containers named before them (200 ms).
 *
 * A list sorted by one of these keys is now ordered by the key, then the name, then the id (the
 * resources' sort by namespace or kind is, 0015): the same rows in the same key order, rows of
 * equal key together by name; the one index serves the sort and the filter. `owner_namespace` had
 * both indexes (0047 added the one in name order): the one by id goes. Posture's other reads by
 * these keys (an image's containers by digest or repository) find them as before, in the wider
 * index.
 */
const KEYS_INDEXED = [
  ['cluster_name', 'inventory_containers_cluster_name'],
  ['image_name', 'inventory_containers_image_name'],
  ['image_repo', 'inventory_containers_image_repo'],
  ['image_tag', 'inventory_containers_image_tag'],
  ['image_digest', 'inventory_containers_digest'],
  ['owner_kind', 'inventory_containers_owner_kind'],
  ['owner_name', 'inventory_containers_owner_name'],
] as const;

export const containerSortsByName: Migration = {
  id: '0066-container-sorts-by-name',
  sql: `
${KEYS_INDEXED.map(
  ([key, index]) => `drop index if exists ${index};
create index ${index} on inventory_containers (account_id, ${key}, name, id);`,
).join('\n')}
drop index if exists inventory_containers_owner_namespace;
`,
};
