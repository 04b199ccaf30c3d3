/**
 * IPv4 and IPv6 addresses as bytes, CIDR prefixes and the longest-prefix match used for trusted
 * IP prefixes (per-account list) and for telling cluster-internal from public destinations.
 * An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) is treated as the IPv4 address it carries, so a
 * dual-stack socket still matches an IPv4 prefix.
 *
 * @example
 *   const trusted = createPrefixMatcher([{ cidr: '10.0.0.0/8', name: 'cluster' }]);
 *   trusted.match('10.1.2.3'); // { cidr: '10.0.0.0/8', name: 'cluster', ... }
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface TrustedPrefix {
  cidr: string;
  name: string;
  description?: string;
}

const unbracketed = (text: string) => (text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text);
// A zone index (fe80::1%eth0) names an interface, not part of the address.
const withoutZone = (address: string) => address.split('%')[0] ?? '';

/** 4 bytes for IPv4, 16 for IPv6; null when the text is no IP literal. */
export function parseIp(text: string): Uint8Array | null {
  const address = unbracketed(text);
  if (isIPv4(address)) return Uint8Array.from(address.split('.').map(Number));
  const bare = withoutZone(address);
  if (!isIPv6(bare)) return null;
  const bytes = ipv6Bytes(bare);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

function ipv6Bytes(address: string): Uint8Array {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  // A dotted IPv4 tail (::ffff:1.2.3.4) is the last two 16-bit groups written in decimal.
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  const words = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[i * 2] = (word >> 8) & 0xff;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}

export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

/** `10.0.0.0/8`, `fd00::/8`; a bare address is a host prefix (/32 or /128). */
export function parseCidr(text: string): Cidr | null {
  const [address = '', length, ...extra] = text.trim().split('/');
  if (extra.length > 0) return null;
  const bytes = parseIp(address);
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (length === undefined) return { bytes, bits: max };
  if (!/^\d{1,3}$/.test(length)) return null;
  let bits = Number(length);
  if (bits > max) {
    // `::ffff:10.0.0.0/104` arrives here as a 4-byte address: translate the prefix length.
    if (bytes.length === 4 && address.includes(':') && bits >= 96 && bits <= 128) bits -= 96;
    else return null;
  }
  return { bytes, bits };
}

export function cidrContains(cidr: Cidr, address: Uint8Array): boolean {
  if (cidr.bytes.length !== address.length) return false;
  const whole = cidr.bits >> 3;
  for (let i = 0; i < whole; i++) if (cidr.bytes[i] !== address[i]) return false;
  const rest = cidr.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((cidr.bytes[whole] ?? 0) & mask) === ((address[whole] ?? 0) & mask);
}

export interface PrefixMatcher {
  /** The most specific prefix containing the address, or null (also for a non-IP text). */
  match(address: string): TrustedPrefix | null;
}

/** Prefixes that do not parse are skipped: the list is validated where it is configured. */
export function createPrefixMatcher(prefixes: readonly TrustedPrefix[]): PrefixMatcher {
  const parsed = prefixes
    .map((prefix) => ({ prefix, cidr: parseCidr(prefix.cidr) }))
    .filter((entry): entry is { prefix: TrustedPrefix; cidr: Cidr } => entry.cidr !== null)
    .sort((a, b) => b.cidr.bits - a.cidr.bits);
  const cache = new Map<string, TrustedPrefix | null>();
  return {
    match(address) {
      const known = cache.get(address);
      if (known !== undefined) return known;
      const bytes = parseIp(address);
      const found = bytes ? (parsed.find((entry) => cidrContains(entry.cidr, bytes))?.prefix ?? null) : null;
      // Bounded: a flood of distinct addresses must not grow the cache without limit.
      if (cache.size > 10_000) cache.clear();
      cache.set(address, found);
      return found;
    },
  };
}

/** Private, loopback, link-local, CGNAT and unique-local space: never "the internet". */
const INTERNAL_RANGES = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '0.0.0.0/8',
  '::1/128',
  '::/128',
  'fc00::/7',
  'fe80::/10',
].map((cidr) => parseCidr(cidr)!);

export function isInternalAddress(address: string): boolean {
  const bytes = parseIp(address);
  return bytes !== null && INTERNAL_RANGES.some((range) => cidrContains(range, bytes));
}

/**
 * Whether `parseIp` would read the text, without building its bytes: every address field of every
 * runtime event is checked at parse time, so this stays free of allocation for IPv4.
 */
export function isIpAddress(text: string): boolean {
  const address = unbracketed(text);
  return isIPv4(address) || isIPv6(withoutZone(address));
}
