import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SsrfBlockedError } from './ssrf-blocked-error.js';
import { isBlockedAddress, UrlRejectedError, vetUrl, type HostLookup } from './ssrf-guard.js';

const mapTo = (table: Record<string, string[]>): HostLookup => async (host) => {
  const addrs = table[host];
  if (!addrs) throw new Error('ENOTFOUND');
  return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('isBlockedAddress', () => {
  const blocked = [
    '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '100.100.100.200', '0.0.0.0', '::1', '::', 'fc00::1', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.1.2.3',
    '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '2002:a00:1::', '::127.0.0.1', '224.0.0.1', '255.255.255.255',
    'not-an-ip',
  ];
  const allowed = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

  it.each(blocked)('blocks %s', (ip) => expect(isBlockedAddress(ip)).toBe(true));
  it.each(allowed)('allows %s', (ip) => expect(isBlockedAddress(ip)).toBe(false));

  it('allowLoopback lets only loopback through', () => {
    expect(isBlockedAddress('127.0.0.1', { allowLoopback: true })).toBe(false);
    expect(isBlockedAddress('::1', { allowLoopback: true })).toBe(false);
    expect(isBlockedAddress('::ffff:127.0.0.1', { allowLoopback: true })).toBe(false);
    expect(isBlockedAddress('10.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isBlockedAddress('169.254.169.254', { allowLoopback: true })).toBe(true);
  });

  it('whitelisted CIDRs are exempt, malformed entries exempt nothing', () => {
    expect(isBlockedAddress('10.1.2.3', { whitelist: ['10.1.0.0/16'] })).toBe(false);
    expect(isBlockedAddress('10.2.0.1', { whitelist: ['10.1.0.0/16', 'garbage'] })).toBe(true);
  });

  it('property: every private IPv4 is blocked in dotted, IPv4-mapped and hex-mapped IPv6 form', () => {
    const privateV4 = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
    );
    fc.assert(
      fc.property(privateV4, ([a, b, c, d]) => {
        const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
        return (
          isBlockedAddress(`${a}.${b}.${c}.${d}`) &&
          isBlockedAddress(`::ffff:${a}.${b}.${c}.${d}`) &&
          isBlockedAddress(`::ffff:${hex(a, b)}:${hex(c, d)}`)
        );
      }),
    );
  });
});

describe('vetUrl', () => {
  it('refuses non-http schemes and bad URLs as plain rejections', async () => {
    await expect(vetUrl('file:///etc/passwd')).rejects.toThrow(new UrlRejectedError("Only http/https allowed, got 'file'"));
    await expect(vetUrl('ftp://example.com/')).rejects.toBeInstanceOf(UrlRejectedError);
    await expect(vetUrl('not a url')).rejects.toBeInstanceOf(UrlRejectedError);
  });

  it('refuses literal private addresses, including encoded IPv4 forms the URL parser normalises', async () => {
    for (const url of ['http://127.0.0.1/', 'http://[::1]/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:169.254.169.254]/', 'http://0/']) {
      await expect(vetUrl(url), url).rejects.toBeInstanceOf(SsrfBlockedError);
    }
  });

  it('refuses a public-looking name that resolves to a private address', async () => {
    const lookup = mapTo({ 'intranet.example.com': ['10.0.0.1'] });
    await expect(vetUrl('http://intranet.example.com/x', { lookup })).rejects.toThrow(
      'Blocked: intranet.example.com resolves to private/internal address 10.0.0.1',
    );
  });

  it('refuses when any one of several addresses is private', async () => {
    const lookup = mapTo({ 'mixed.example.com': ['93.184.216.34', '192.168.0.10'] });
    await expect(vetUrl('https://mixed.example.com/', { lookup })).rejects.toBeInstanceOf(SsrfBlockedError);
  });

  it('uses the redirect wording for redirect hops and reports unresolvable names', async () => {
    const lookup = mapTo({ 'r.example.com': ['172.20.0.1'] });
    await expect(vetUrl('http://r.example.com/', { lookup }, true)).rejects.toThrow('Redirect target is a private address: 172.20.0.1');
    await expect(vetUrl('http://nowhere.example.com/', { lookup })).rejects.toThrow('Cannot resolve hostname: nowhere.example.com');
  });

  it('returns the vetted addresses for pinning', async () => {
    const lookup = mapTo({ 'ok.example.com': ['93.184.216.34'] });
    const target = await vetUrl('https://ok.example.com/a?b=1', { lookup });
    expect(target.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(target.url.href).toBe('https://ok.example.com/a?b=1');
  });
});
