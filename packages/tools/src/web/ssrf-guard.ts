import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { NanobotError } from '@nanobot/schema';
import { SsrfBlockedError } from './ssrf-blocked-error.js';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves a host name to every address it has. Injected so tests can map names to private
 * addresses without a network; may throw (reported as "Cannot resolve hostname"); awaited.
 */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (`dns.lookup`, all addresses). */
export const systemLookup: HostLookup = async (hostname) => {
  const all = await dnsLookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** What the SSRF guard lets through. */
export interface SsrfPolicy {
  /** CIDRs exempt from blocking (the reference's `tools.ssrfWhitelist`). */
  readonly whitelist?: readonly string[];
  /** Let 127.0.0.0/8 and ::1 through (trusted local setups and tests that serve on 127.0.0.1). */
  readonly allowLoopback?: boolean;
  /** Name resolution; defaults to the system resolver. */
  readonly lookup?: HostLookup;
}

/** The reference's blocked networks, then further non-public ranges we also refuse. */
const BLOCKED_CIDRS = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16',
  '::/128', '::1/128', 'fc00::/7', 'fe80::/10',
  // Beyond the reference: multicast, reserved, broadcast, IETF/benchmark nets, site-local, multicast v6.
  '192.0.0.0/24', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4', 'fec0::/10', 'ff00::/8',
].map((c) => ipaddr.parseCIDR(c));
const LOOPBACK = [ipaddr.parseCIDR('127.0.0.0/8'), ipaddr.parseCIDR('::1/128')];

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

function inRange(addr: Addr, range: [Addr, number]): boolean {
  return addr.kind() === range[0].kind() && addr.match(range);
}

/**
 * IPv4 addresses hidden inside IPv6 forms: mapped (`::ffff:a.b.c.d`), compatible (`::a.b.c.d`),
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002:AABB:CCDD::/48`). Each is judged as the IPv4 it carries.
 */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = addr.parts;
  if (addr.isIPv4MappedAddress()) return addr.toIPv4Address();
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1)) return v4(p[6], p[7]);
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return v4(p[6], p[7]);
  if (p[0] === 0x2002) return v4(p[1], p[2]);
  return undefined;
}

/**
 * Whether an IP address is private/internal for the guard: loopback, private, link-local
 * (incl. the 169.254.169.254 metadata address), CGNAT (incl. 100.100.100.200), unique-local
 * (incl. fd00:ec2::254), unspecified, multicast, reserved — after unwrapping IPv4 carried in
 * IPv6. Unparseable text counts as blocked. Whitelisted CIDRs and, if allowed, loopback pass.
 * Pure.
 */
export function isBlockedAddress(ip: string, policy: SsrfPolicy = {}): boolean {
  let addr: Addr;
  try {
    addr = ipaddr.parse(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return true;
  }
  const candidates: Addr[] = [addr];
  if (addr.kind() === 'ipv6') {
    const inner = embeddedIPv4(addr as ipaddr.IPv6);
    if (inner) candidates.unshift(inner);
  }
  const effective = candidates[0];
  for (const cidr of policy.whitelist ?? []) {
    try {
      if (inRange(effective, ipaddr.parseCIDR(cidr))) return false;
    } catch {
      // A malformed whitelist entry exempts nothing.
    }
  }
  if (policy.allowLoopback && LOOPBACK.some((r) => inRange(effective, r))) return false;
  return candidates.some((a) => BLOCKED_CIDRS.some((r) => inRange(a, r)));
}

/** A URL that passed the guard and the addresses it may be fetched from (pin one of them). */
export interface VettedTarget {
  readonly url: URL;
  readonly addresses: readonly ResolvedAddress[];
}

/** A URL the guard refused for a reason other than SSRF (bad scheme, no host, DNS failure). */
export class UrlRejectedError extends NanobotError {
  constructor(message: string) {
    super('URL_REJECTED', message);
  }
}

/**
 * Checks a URL before any byte is sent: http/https only, a host, and every address the host
 * resolves to must be public. Returns the vetted addresses so the caller connects to exactly
 * those (DNS pinning: a second, rebinding answer is never used). `redirect` selects the
 * reference's wording for redirect hops. Throws `SsrfBlockedError` for private targets and
 * `UrlRejectedError` for the rest.
 */
export async function vetUrl(input: string | URL, policy: SsrfPolicy = {}, redirect = false): Promise<VettedTarget> {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : input;
  } catch {
    throw new UrlRejectedError(`Invalid URL: ${String(input)}`);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'http' && scheme !== 'https') throw new UrlRejectedError(`Only http/https allowed, got '${scheme}'`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new UrlRejectedError('Missing domain');
  const blocked = (ip: string) =>
    new SsrfBlockedError(
      redirect ? `Redirect target is a private address: ${ip}` : `Blocked: ${host} resolves to private/internal address ${ip}`,
      url.href,
      ip,
    );
  if (ipaddr.isValid(host)) {
    if (isBlockedAddress(host, policy)) throw blocked(host);
    return { url, addresses: [{ address: host, family: host.includes(':') ? 6 : 4 }] };
  }
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await (policy.lookup ?? systemLookup)(host);
  } catch {
    throw new UrlRejectedError(`Cannot resolve hostname: ${host}`);
  }
  if (addresses.length === 0) throw new UrlRejectedError(`Cannot resolve hostname: ${host}`);
  for (const a of addresses) if (isBlockedAddress(a.address, policy)) throw blocked(a.address);
  return { url, addresses };
}
