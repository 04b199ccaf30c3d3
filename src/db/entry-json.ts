/**
 * A list entry written as the API's JSON text by PostgreSQL: `row_to_json` over one column per
 * property of the entry's response schema, named and ordered as the schema's properties, so the
 * server passes each entry's text on instead of decoding every column into a string, building an
 * object and serializing it again (docs/performance.md, "Fix 39").
 *
 * On a page of 100 inventory containers that decoding, the objects and their garbage were most of
 * the server's 1.5 CPU ms per request, against 0.4 ms PostgreSQL spends writing the same JSON. The
 * server runs on one thread beside PostgreSQL's backends on the same cores, so moving the work to
 * them shortens the queue every request waits in.
 *
 * The text is the bytes the route's serializer (fast-json-stringify) writes for the same values,
 * for the column types whose JSON PostgreSQL writes the way it does: text and uuid (escaped as
 * JSON.stringify escapes, compact), booleans, integers (int2, int4, int8), arrays of those, NULL
 * as null, and timestamps written as text by isoUtc (iso-time.ts). Not numeric (PostgreSQL keeps
 * "0.50"), floats (it writes 1e-05 where JavaScript writes 0.00001) or jsonb (its text has spaces
 * after `:` and `,`). test/http/entry-json.test.ts holds every listed entry to those bytes.
 *
 * The schema is the allow-list, as a mapping function is elsewhere: a column the schema does not
 * name is never written, and every property must be given its SQL (an optional one may be left
 * out by giving `undefined`, and is then absent from every entry).
 *
 * @example
 *   const entry = entryJson(ContainerSchema, { id: 'c.id', created_at: isoUtc('c.created_at'), ... });
 *   `select ${entry.select} from inventory_containers c ${entry.lateral} where ... order by ...`
 *   // rows: { entry: '{"id":"...","created_at":"2026-..."}' }
 */
import type { Static, TObject } from 'typebox';

/**
 * The SQL of each property, every one named; an optional property's may be undefined (left out).
 * Keys through Extract so the mapped type does not copy the properties' optionality.
 */
export type EntryColumns<S extends TObject> = {
  [K in Extract<keyof Static<S>, string>]: Record<never, never> extends Pick<Static<S>, K>
    ? string | undefined
    : string;
};

export interface EntryJson {
  /** the select list item: the entry's text as `entry` */
  select: string;
  /** the lateral join that names the columns, after the FROM items the SQL reads */
  lateral: string;
}

/** A page row read with `entryJson`: the entry's text. */
export interface EntryRow {
  entry: string;
}

/**
 * A row's id and version: its `xmin`, which every update of the row renews, so bytes kept from the
 * row at one version are never served for another (http/row-bytes-cache.ts).
 */
export interface RowVersion {
  id: string;
  row_version: string;
}

/** A page row read with `entryJson` and its row's version. */
export type VersionedEntryRow = EntryRow & RowVersion;

/** The select list item of the version of the row read as `alias`. */
export const rowVersionOf = (alias: string) => `${alias}.xmin::text as row_version`;

const ALIAS = 'api_entry';

export function entryJson<S extends TObject>(schema: S, columns: EntryColumns<S>): EntryJson {
  const given = columns as Record<string, string | undefined>;
  const properties = Object.keys(schema.properties);
  const unknown = Object.keys(given).filter((key) => !properties.includes(key));
  if (unknown.length > 0) throw new Error(`entryJson: not in the schema: ${unknown.join(', ')}`);
  const items = properties.flatMap((property) => {
    const sql = given[property];
    if (sql === undefined) {
      if (!schema.required?.includes(property)) return [];
      throw new Error(`entryJson: no SQL for the required property ${property}`);
    }
    return [`${sql} as "${property}"`];
  });
  return {
    select: `row_to_json(${ALIAS})::text as entry`,
    lateral: `cross join lateral (select ${items.join(', ')}) ${ALIAS}`,
  };
}
