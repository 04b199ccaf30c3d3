/**
 * SQL expressions giving a value as the text of its CSV cell, byte for byte as cve-csv.ts writes
 * it through csv-stringify (escape_formulas, booleans as true/false, a missing value as an empty
 * cell). The CVE report's COPY form (cve-report-repository.ts) is made of them, so PostgreSQL
 * writes cells the server would otherwise format row by row.
 *
 * Each expression yields NULL for an empty cell: COPY writes NULL as nothing, but an empty string
 * as `""`, where csv-stringify writes nothing for both.
 */

/**
 * The code points csv-stringify's escape_formulas prefixes with `'` when a cell starts with them:
 * = + - @ tab CR, and the full-width = + - @ (U+FF1D, U+FF0B, U+FF0D, U+FF20).
 */
const FORMULA_STARTS = [61, 43, 45, 64, 9, 13, 0xff1d, 0xff0b, 0xff0d, 0xff20];

/**
 * A text cell, neutralised when a spreadsheet could take it for a formula. The first character
 * is read with ascii() (its code point in a UTF8 database): an integer to compare, where left()
 * would build a text. `value` is evaluated twice (its first character, then itself), so it should
 * be a column or a cheap expression, or the check should read `firstCharacterOf`: a cheaper
 * expression starting with the same character, or with none that starts a formula.
 */
export function csvText(value: string, firstCharacterOf = value): string {
  return `case when ascii(${firstCharacterOf}) in (${FORMULA_STARTS.join(', ')}) then '''' || ${value}
        else nullif(${value}, '') end`;
}

/**
 * A text array's cell: its elements joined with `|`, as csvText would write the joined text. The
 * join is the costly part (a report's owner uids run to thousands of characters a row), so it is
 * written once and the formula check reads the first element instead: the joined text starts
 * with that element, or with `|` (or is empty) when the element is empty, and neither of those
 * starts a formula, as ascii('') (0) does not. This holds for arrays without NULL elements, which
 * array_to_string would skip: the report's arrays are aggregates of NOT NULL columns. Checking
 * the joined text instead cost PostgreSQL about 13% of the CSV export of the benchmark's large
 * account (docs/performance.md, "Fix 55").
 */
export function csvJoinedText(array: string): string {
  return csvText(`array_to_string(${array}, '|')`, `${array}[1]`);
}

/** true / false, as the JSON report writes them (COPY would write t / f). */
export function csvBoolean(value: string): string {
  return `case ${value} when true then 'true' when false then 'false' end`;
}

/**
 * A double precision below 2^53 in magnitude (the report's are probabilities: the EPSS import
 * refuses anything outside 0 to 1) as JavaScript's String(number) writes it, which is what the
 * driver's parse and csv-stringify make of it. Both PostgreSQL (extra_float_digits 1, its default)
 * and JavaScript print the shortest digits that read back as the same double, and differ in when
 * they switch to an exponent. From 1e-4 to 1e15 neither does, and PostgreSQL's text is taken as it
 * is (every EPSS figure but the smallest). JavaScript writes plain decimals down to 1e-6: there,
 * and from 1e15, PostgreSQL's text read as numeric prints its digits plain. Below 1e-6 both use an
 * exponent, PostgreSQL with at least two digits (1e-07 where JavaScript writes 1e-7).
 *
 * From 2^53 up, where doubles are integers at least 2 apart, a decimal can fall exactly halfway
 * between two of them, and the two printers then disagree on the last digit
 * (24792704962906230 in JavaScript, 2.4792704962906232e+16 in PostgreSQL): not for these cells.
 */
export function jsNumberText(value: string): string {
  return `case when ${value} is null then null
        when abs(${value}) >= 1e-4 and abs(${value}) < 1e15 then ${value}::text
        when ${value} <> 0 and abs(${value}) < 1e-6 then replace(${value}::text, 'e-0', 'e-')
        else ${value}::text::numeric::text end`;
}
