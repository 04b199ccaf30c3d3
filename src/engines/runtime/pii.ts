/**
 * Personal data and credentials in request paths and query strings. Detectors favour precision:
 * card numbers must pass the Luhn check and start like a real card brand, SSNs must use the
 * dashed form with valid area/group/serial numbers, bare digit runs are phone numbers only in a
 * parameter named like one. Only labels leave this module, never the matched text.
 *
 * @example
 *   detectPii('john.doe@example.com')            // ['email']
 *   detectPii('4111 1111 1111 1111')             // ['credit_card']
 *   detectPii('eyJhbGciOi...', 'access_token')   // ['bearer_token']
 */

export const PII_LABELS = [
  'email',
  'credit_card',
  'us_ssn',
  'phone_number',
  'bearer_token',
  'api_key',
] as const;
export type PiiLabel = (typeof PII_LABELS)[number];

const EMAIL =
  /[A-Za-z0-9._%+-]+@([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24})(?![A-Za-z0-9-])/g;
/** `logo@2x.png` is a high-density image, not an address. */
const IMAGE_DENSITY = /^\d(?:\.\d)?x\./i;
/** 13 to 19 digits, optionally grouped by single spaces or dashes, not inside a longer number. */
const CARD_CANDIDATE = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
const SSN = /(?<![\d-])(\d{3})-(\d{2})-(\d{4})(?![\d-])/g;
const E164 = /(?<![\w+])\+\d[\d ().-]{6,20}\d(?!\d)/g;
const NANP = /(?<![\d.-])(?:\(\d{3}\) ?|\d{3}[-.])\d{3}[-.]\d{4}(?![\d.-])/;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/i;
/** Well-known key formats: OpenAI-style, AWS access key id, GitHub, GitLab, Slack, Google, Stripe. */
const API_KEY_FORMATS = [
  /\bsk-[A-Za-z0-9_-]{20,}/,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\bAIza[0-9A-Za-z_-]{35}\b/,
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/,
];

/** Parameter names whose value is a credential whatever it looks like (exact, lowercase). */
const TOKEN_PARAMS = new Set([
  'access_token',
  'id_token',
  'refresh_token',
  'auth_token',
  'token',
  'bearer',
  'jwt',
  'session_token',
]);
const KEY_PARAMS = new Set([
  'api_key',
  'apikey',
  'api-key',
  'x-api-key',
  'client_secret',
  'secret',
  'password',
  'passwd',
  'pwd',
  'private_token',
]);
const PHONE_PARAMS = /^(?:phone|phone_?number|tel|telephone|mobile|msisdn|cell)$/i;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes of the major brands (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay). */
function cardBrandPrefix(digits: string): boolean {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  const six = Number(digits.slice(0, 6));
  return (
    digits.startsWith('4') ||
    (two >= 51 && two <= 55) ||
    (four >= 2221 && four <= 2720) ||
    two === 34 ||
    two === 37 ||
    digits.startsWith('6011') ||
    digits.startsWith('65') ||
    (six >= 644000 && six <= 649999) ||
    (four >= 3528 && four <= 3589) ||
    two === 36 ||
    two === 38 ||
    (Number(digits.slice(0, 3)) >= 300 && Number(digits.slice(0, 3)) <= 305) ||
    two === 62
  );
}

function hasCardNumber(text: string): boolean {
  for (const match of text.matchAll(CARD_CANDIDATE)) {
    const digits = match[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && cardBrandPrefix(digits) && luhnValid(digits))
      return true;
  }
  return false;
}

/** SSA rules: area 001-899 except 666, group 01-99, serial 0001-9999. */
function hasSsn(text: string): boolean {
  for (const match of text.matchAll(SSN)) {
    const area = Number(match[1]);
    if (area === 0 || area === 666 || area >= 900) continue;
    if (match[2] === '00' || match[3] === '0000') continue;
    return true;
  }
  return false;
}

function hasPhone(text: string, name: string): boolean {
  for (const match of text.matchAll(E164)) {
    const digits = match[0].replace(/\D/g, '').length;
    if (digits >= 8 && digits <= 15) return true;
  }
  if (NANP.test(text)) return true;
  // A bare digit run is a phone number only where the parameter says so.
  return PHONE_PARAMS.test(name) && /^\+?[\d ().-]{7,20}$/.test(text) && text.replace(/\D/g, '').length >= 7;
}

/** Any text a detector's own format could start to match: token and key prefixes, `bearer`. */
const FORMAT_HINT = /eyJ|bearer|sk-|[rs]k_|AKIA|ASIA|gh[pousr]_|glpat-|xox[abprs]-|AIza/i;

/**
 * Whether any detector can match, from what each one needs at the least: an `@` (email), eight
 * digits (a card has 13, an SSN 9, a phone number 8 in E.164 and 10 in the NANP form), a
 * format's prefix, or a parameter named as a credential or a phone number. Most path segments and
 * query values (`api`, `v1`, `orders`, `42`) have none of these, and every runtime HTTP event
 * templates several of them, so they skip the dozen expressions below. Exported for the property
 * test that holds it to `runDetectors`.
 */
export function mayHoldPii(value: string, param: string): boolean {
  if (TOKEN_PARAMS.has(param) || KEY_PARAMS.has(param) || PHONE_PARAMS.test(param)) return true;
  if (value.includes('@') || FORMAT_HINT.test(value)) return true;
  let digits = 0;
  for (let i = 0; i < value.length && digits < 8; i++) {
    const code = value.charCodeAt(i);
    if (code >= 48 && code <= 57) digits++;
  }
  return digits >= 8;
}

/** Every detector over the value; `param` is the lowercased parameter name. */
export function runDetectors(value: string, param: string): PiiLabel[] {
  const labels = new Set<PiiLabel>();
  if (JWT.test(value) || BEARER.test(value) || (TOKEN_PARAMS.has(param) && value.length >= 8))
    labels.add('bearer_token');
  if (API_KEY_FORMATS.some((format) => format.test(value)) || (KEY_PARAMS.has(param) && value.length >= 4)) {
    labels.add('api_key');
  }
  if ([...value.matchAll(EMAIL)].some((match) => !IMAGE_DENSITY.test(match[1] ?? ''))) labels.add('email');
  if (hasCardNumber(value)) labels.add('credit_card');
  if (hasSsn(value)) labels.add('us_ssn');
  if (hasPhone(value, param)) labels.add('phone_number');
  return PII_LABELS.filter((label) => labels.has(label));
}

/**
 * The labels of what a value holds. `name` is the query parameter the value came from, if any:
 * a credential in `?token=` is a credential however it looks.
 */
export function detectPii(value: string, name = ''): PiiLabel[] {
  const param = name.toLowerCase();
  if (value.length === 0 || !mayHoldPii(value, param)) return [];
  return runDetectors(value, param);
}
