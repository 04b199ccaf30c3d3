/**
 * The parts of arguments and file paths that vary from one run to the next (numbers, UUIDs, hex
 * ids, timestamps, IP addresses, long random tokens, files under temporary directories) replaced
 * by placeholders, so `sleep 30` and `sleep 45` become one program `sleep {num}` and
 * `/proc/4242/stat` one file `/proc/{num}/stat`, while `sh -c 'nginx -t'` and
 * `sh -c 'cat /etc/shadow'` stay apart (their fixed text differs).
 *
 * @example
 *   normalizeArg('--request-id=3f1c9a4e-7b2d-4c8e-9a1f-0d2e3c4b5a69') // '--request-id={uuid}'
 *   normalizeFilePath('/tmp/tmp.Xa81kq/out.json')                     // '/tmp/{tmp}'
 */

/** Whole-piece patterns, checked in order; the first that matches names the placeholder. */
const WHOLE: [RegExp, string][] = [
  [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, '{uuid}'],
  [/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i, '{time}'],
  [/^\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?$/, '{ip}'],
  // A sign is left alone: `-9` in `kill -9` is an option, not a varying value.
  [/^\d+(?:\.\d+)?[smhdkKMG]?$/, '{num}'],
  // Hex ids (commit shas, container ids): with a digit from 8 characters, any from 16.
  [/^(?:0x)?(?=[0-9a-f]*\d)[0-9a-f]{8,}$|^[0-9a-f]{16,}$/i, '{hex}'],
];

/**
 * Long generated tokens (API keys, base64url, pod names) switch between letters and digits many
 * times; words with a version or a year in them (`python3.11-dist-packages`) do not.
 */
export function isRandomToken(piece: string): boolean {
  if (piece.length < 20 || !/^[A-Za-z0-9_-]+={0,2}$/.test(piece)) return false;
  let switches = 0;
  let previousDigit: boolean | null = null;
  for (const char of piece) {
    const digit = char >= '0' && char <= '9';
    const letter = !digit && /[A-Za-z]/.test(char);
    if (!digit && !letter) continue;
    if (previousDigit !== null && previousDigit !== digit) switches++;
    previousDigit = digit;
  }
  return switches >= 6;
}

const TEMP_DIRS = ['/tmp/', '/var/tmp/', '/dev/shm/', '/run/user/'];
/** Delimiters inside an argument: paths, URLs, key=value, lists, host:port. */
const DELIMITERS = /([/=&?,:@;]+)/;

function wholePiece(piece: string): string | null {
  for (const [pattern, placeholder] of WHOLE) if (pattern.test(piece)) return placeholder;
  return isRandomToken(piece) ? '{token}' : null;
}

function tempPrefix(path: string): string | null {
  return TEMP_DIRS.find((dir) => path.startsWith(dir) && path.length > dir.length) ?? null;
}

/** One argument with its varying parts replaced; unchanged when nothing in it varies. */
export function normalizeArg(arg: string): string {
  if (arg === '') return arg;
  const whole = wholePiece(arg);
  if (whole) return whole;
  const temp = tempPrefix(arg);
  if (temp) return `${temp}{tmp}`;
  if (!DELIMITERS.test(arg)) return arg;
  return arg
    .split(DELIMITERS)
    .map((piece, index) => {
      if (index % 2 === 1 || piece === '') return piece; // a delimiter run
      return wholePiece(piece) ?? piece;
    })
    .join('');
}

/** Numbers set off by `-`, `_` or `.` inside a file name: `part-0042.bin`, `app.log.3`, `libssl.so.3`. */
const NUMBERED_NAME = /(?<=[-_.])\d+(?=[-_.]|$)/g;

/**
 * A file path with varying segments replaced; everything under a temporary directory is one
 * entry, and numbered file names (rotated logs, data parts) are one name.
 */
export function normalizeFilePath(path: string): string {
  const temp = tempPrefix(path);
  if (temp) return `${temp}{tmp}`;
  return path
    .split('/')
    .map((segment) =>
      segment === '' ? segment : (wholePiece(segment) ?? segment.replace(NUMBERED_NAME, '{num}')),
    )
    .join('/');
}

export const hasPlaceholder = (text: string): boolean => /\{(?:uuid|time|ip|num|hex|token|tmp)\}/.test(text);
