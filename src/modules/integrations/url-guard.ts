/**
 * Outbound URL policy for integrations (server-side request forgery guard). Checked when a URL is
 * configured and again at every send, on the addresses the host resolves to at that moment; the
 * request then connects to exactly the address that was checked (see `pinnedLookup`), so a DNS
 * answer that changes between check and connect (rebinding) cannot slip through.
 *
 * Always refused: unspecified (0.0.0.0/8, ::), link-local (169.254.0.0/16, fe80::/10, which hold
 * the cloud metadata endpoints), other metadata addresses, multicast and broadcast.
 * Refused unless `allowPrivateNetworks` (INTEGRATIONS_ALLOW_PRIVATE_NETWORKS): loopback, private
 * (RFC 1918, fc00::/7) and carrier-grade NAT ranges.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export class UrlRefused extends Error {}
/** The text is not an acceptable URL at all (as opposed to an address that may not be called). */
export class UrlSyntaxError extends UrlRefused {}

const ALWAYS = new BlockList();
ALWAYS.addSubnet('0.0.0.0', 8, 'ipv4');
ALWAYS.addSubnet('169.254.0.0', 16, 'ipv4');
ALWAYS.addSubnet('224.0.0.0', 4, 'ipv4');
ALWAYS.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, and 255.255.255.255 broadcast
ALWAYS.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
ALWAYS.addAddress('::', 'ipv6');
ALWAYS.addSubnet('fe80::', 10, 'ipv6');
ALWAYS.addSubnet('ff00::', 8, 'ipv6');
ALWAYS.addAddress('fd00:ec2::254', 'ipv6'); // AWS IPv6 metadata

const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data']);

export interface UrlPolicy {
  allowPrivateNetworks: boolean;
}

/** `::ffff:10.0.0.1` is 10.0.0.1: check the IPv4 address it carries. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Why an address may not be called, or null when it may. */
export function addressRefusal(raw: string, policy: UrlPolicy): string | null {
  const { address, family } = normalise(raw);
  if (ALWAYS.check(address, family)) return `${raw} is a link-local, metadata or unspecified address`;
  if (!policy.allowPrivateNetworks && PRIVATE.check(address, family))
    return `${raw} is a loopback or private address (INTEGRATIONS_ALLOW_PRIVATE_NETWORKS is off)`;
  return null;
}

/** Syntax of an outbound URL: http(s), a host, no embedded credentials. Returns the parsed URL. */
export function parseOutboundUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UrlSyntaxError('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlSyntaxError('must use http or https');
  if (url.username || url.password) throw new UrlSyntaxError('must not carry credentials');
  if (!url.hostname) throw new UrlSyntaxError('must name a host');
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(new UrlRefused(`host ${host} does not resolve`)) : resolve(addresses),
    ),
  );
}

/**
 * Checks a URL and every address its host resolves to; returns the first allowed address to
 * connect to. Throws UrlRefused with a message fit for a validation detail.
 */
export async function checkOutboundUrl(text: string, policy: UrlPolicy): Promise<LookupAddress> {
  const url = parseOutboundUrl(text);
  const host = hostOf(url);
  if (METADATA_HOSTS.has(host.replace(/\.$/, ''))) throw new UrlRefused(`${host} is a metadata host`);
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolveAll(host);
  if (addresses.length === 0) throw new UrlRefused(`host ${host} does not resolve`);
  // Every answer must pass: a host with one public and one internal address is refused.
  for (const entry of addresses) {
    const refusal = addressRefusal(entry.address, policy);
    if (refusal) throw new UrlRefused(refusal);
  }
  return addresses[0] as LookupAddress;
}

/** A `lookup` for http.request that answers the already-checked address and nothing else. */
export function pinnedLookup(checked: LookupAddress) {
  return (
    _host: string,
    options: { all?: boolean },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (options.all) callback(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
}
