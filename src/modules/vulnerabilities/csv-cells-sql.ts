/**
 * SQL expressions giving a value as the text of its CSV cell, byte for byte as cve-csv.ts writes
 * it through csv-stringify (escape_formulas, booleans as true/false, a missing value as an empty
 * cell). The CVE report's COPY form (cve-report-repository.ts) is made of them, so PostgreSQL
 * writes cells the server would otherwise format row by row.
 *
 * Each expression yields NULL for an empty cell: COPY writes NULL as nothing, but an empty string
 * as `""`, where csv-stringify writes nothing for both.
 */

/** The first characters csv-stringify's escape_formulas prefixes with `'`: = + - @ tab CR and the full-width = + - @. */
const FORMULA_STARTS = [
  `'='`,
  `'+'`,
  `'-'`,
  `'@'`,
  `E'\\t'`,
  `E'\\r'`,
  'chr(65309)',
  'chr(65291)',
  'chr(65293)',
  'chr(65312)',
];

/**
 * A text cell, neutralised when a spreadsheet could take it for a formula. `value` is evaluated
 * twice (its first character, then itself), so it should be a column or a cheap expression.
 */
export function csvText(value: string): string {
  return `case when left(${value}, 1) in (${FORMULA_STARTS.join(', ')}) then '''' || ${value}
        else nullif(${value}, '') end`;
}

/** true / false, as the JSON report writes them (COPY would write t / f). */
export function csvBoolean(value: string): string {
  return `case ${value} when true then 'true' when false then 'false' end`;
}

/**
 * A double precision as JavaScript's String(number) writes it, which is what the driver's parse
 * and csv-stringify make of it. Both PostgreSQL (extra_float_digits 1, its default) and
 * JavaScript print the shortest digits that read back as the same double; they differ in when
 * they switch to an exponent. JavaScript writes plain decimals from 1e-6 to 1e21: PostgreSQL's
 * text read as numeric prints those digits plain. Below 1e-6 both use an exponent, PostgreSQL
 * with at least two digits (1e-07 where JavaScript writes 1e-7); from 1e21 they agree.
 */
export function jsNumberText(value: string): string {
  return `case when ${value} is null then null
        when ${value} <> 0 and abs(${value}) < 1e-6 then replace(${value}::text, 'e-0', 'e-')
        when abs(${value}) >= 1e21 then ${value}::text
        else ${value}::text::numeric::text end`;
}
