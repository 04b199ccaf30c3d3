/**
 * CRLF record ends for CSV that PostgreSQL's COPY wrote with LF ones. COPY quotes every field
 * holding a CR or LF, so an LF outside quotes ends a record and one inside belongs to a value:
 * only the former become CRLF, and a value keeps its bytes. Whether the stream is inside quotes
 * is carried from chunk to chunk (a chunk can end anywhere, even between a doubled quote, which
 * toggles the state twice and so changes nothing).
 *
 * @example
 *   const ends = new CrlfRecordEnds();
 *   ends.convert(Buffer.from('a,"x\ny"\nb,c\n')).toString() // 'a,"x\ny"\r\nb,c\r\n'
 */
const QUOTE = 0x22;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');

export class CrlfRecordEnds {
  private insideQuotes = false;

  convert(chunk: Buffer): Buffer {
    const parts: Buffer[] = [];
    let copiedUpTo = 0;
    let position = 0;
    // The next quote at or after `position`, searched again only once passed: searching from
    // every LF would rescan the rest of a chunk without quotes once per record.
    let quote = chunk.indexOf(QUOTE);
    while (position < chunk.length) {
      if (this.insideQuotes) {
        if (quote === -1) break;
        this.insideQuotes = false;
        position = quote + 1;
        quote = chunk.indexOf(QUOTE, position);
        continue;
      }
      // Outside quotes the next byte of interest is an LF (a record's end) or a quote.
      const lf = chunk.indexOf(LF, position);
      if (quote !== -1 && (lf === -1 || quote < lf)) {
        this.insideQuotes = true;
        position = quote + 1;
        quote = chunk.indexOf(QUOTE, position);
        continue;
      }
      if (lf === -1) break;
      parts.push(chunk.subarray(copiedUpTo, lf), CRLF);
      copiedUpTo = lf + 1;
      position = lf + 1;
    }
    if (copiedUpTo === 0) return chunk;
    if (copiedUpTo < chunk.length) parts.push(chunk.subarray(copiedUpTo));
    return Buffer.concat(parts);
  }
}

/** The chunks of a COPY's CSV with CRLF record ends. */
export async function* crlfRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const ends = new CrlfRecordEnds();
  for await (const chunk of chunks) yield ends.convert(chunk);
}
