/**
 * A risk's API JSON, written once when the risk is (docs/performance.md, "Fix 16a"). An identities
 * page of 50 identities carries about 1,000 risks; reading each as a row of three timestamps and a
 * jsonb, building its API object and serializing it was most of the server's work per page.
 *
 * The upsert stores the object up to its detection times (identity_risks.head_json, migration
 * 0025). The times are the object's last fields and the only ones that move without the risk being
 * rewritten, so a read appends them, read as text in the API's format (isoUtc), and closes the
 * object: no Date, no API object and no JSON.stringify per risk on the read side.
 */
import { apiRiskHead, type RiskContent, toApiRisk } from './mapping.js';
import type { RiskRow, RiskTextRow } from './repository.js';

/** A lone surrogate (half of a UTF-16 pair); in `u` mode a whole pair is one code point. */
const LONE_SURROGATE = /\p{Cs}/gu;

/**
 * What a text column reads back: pg encodes parameters as UTF-8, where a lone surrogate becomes
 * U+FFFD, while JSON.stringify would write it as a `\udxxx` escape. The cached text must be what
 * the stored columns serialize to.
 */
const asStored = (text: string) => text.replace(LONE_SURROGATE, '\ufffd');

/** The text stored in head_json for a risk as the recompute writes it. */
export function riskHeadJson(risk: RiskContent): string {
  const head = apiRiskHead(risk);
  head.type = asStored(head.type);
  head.name = asStored(head.name);
  head.description = asStored(head.description);
  head.fingerprint = asStored(head.fingerprint);
  head.severity = asStored(head.severity);
  head.namespace = asStored(head.namespace);
  return JSON.stringify(head).slice(0, -1);
}

/** A risk's whole API text: its stored head and its detection times. */
export function riskJson(head: string, times: Omit<RiskTextRow, 'identity_id' | 'id' | 'head_json'>): string {
  const deleted = times.deleted_at === null ? 'null' : `"${times.deleted_at}"`;
  return `${head},"first_detected_at":"${times.first_detected_at}","last_detected_at":"${times.last_detected_at}","deleted_at":${deleted}}`;
}

/**
 * Each identity's `risks` array as text, from its risks in the page's order. A risk written before
 * head_json existed is serialized from its row (`older`, by `<identity id>/<risk id>`), as every
 * risk was before.
 */
export function risksJsonByIdentity(
  rows: readonly RiskTextRow[],
  older: ReadonlyMap<string, RiskRow>,
): Map<string, string> {
  const texts = new Map<string, string[]>();
  for (const row of rows) {
    let text: string;
    if (row.head_json !== null) text = riskJson(row.head_json, row);
    else {
      const risk = older.get(`${row.identity_id}/${row.id}`);
      if (risk === undefined) throw new Error(`risk ${row.id} was read without its row`);
      text = JSON.stringify(toApiRisk(risk));
    }
    const list = texts.get(row.identity_id);
    if (list) list.push(text);
    else texts.set(row.identity_id, [text]);
  }
  const arrays = new Map<string, string>();
  for (const [identity, list] of texts) arrays.set(identity, `[${list.join(',')}]`);
  return arrays;
}
