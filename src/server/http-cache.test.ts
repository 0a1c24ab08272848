import { expect } from 'chai';
import {
  acceptsGzip,
  allEntityTag,
  contentHashHex,
  etagHeader,
  httpDate,
  ifNoneMatchMatches,
  isNotModified,
  metasEntityTag,
} from './http-cache.js';

const H = `sha256:${'ab'.repeat(32)}`;

describe('server/http-cache', () => {
  it('tags: all is the content hash hex; metas depends on hash and query', () => {
    expect(allEntityTag(H)).to.equal('ab'.repeat(32));
    expect(metasEntityTag(H, 'schema=a')).to.match(/^[0-9a-f]{64}$/);
    expect(metasEntityTag(H, 'schema=a')).to.not.equal(metasEntityTag(H, 'schema=b'));
    expect(metasEntityTag(H, 'schema=a')).to.not.equal(
      metasEntityTag(`sha256:${'cd'.repeat(32)}`, 'schema=a'),
    );
    expect(() => contentHashHex('sha256:XYZ')).to.throw('invalid content hash');
  });

  it('etag header: strong, gzip body has its own tag', () => {
    expect(etagHeader('t', false)).to.equal('"t"');
    expect(etagHeader('t', true)).to.equal('"t-gzip"');
  });

  it('If-None-Match: lists, weak prefix, *, either coding', () => {
    expect(ifNoneMatchMatches('"t"', 't')).to.equal(true);
    expect(ifNoneMatchMatches('"x", W/"t"', 't')).to.equal(true);
    expect(ifNoneMatchMatches('"t-gzip"', 't')).to.equal(true);
    expect(ifNoneMatchMatches('*', 't')).to.equal(true);
    expect(ifNoneMatchMatches('"u"', 't')).to.equal(false);
    expect(ifNoneMatchMatches('t', 't')).to.equal(false);
    expect(ifNoneMatchMatches('', 't')).to.equal(false);
  });

  it('If-Modified-Since is used only without If-None-Match, at one-second resolution', () => {
    const lm = new Date('2026-01-02T03:04:05.678Z');
    expect(httpDate(lm)).to.equal('Fri, 02 Jan 2026 03:04:05 GMT');
    expect(isNotModified({ ifModifiedSince: httpDate(lm) }, 't', lm)).to.equal(true);
    expect(isNotModified({ ifModifiedSince: 'Fri, 02 Jan 2026 03:04:04 GMT' }, 't', lm)).to.equal(
      false,
    );
    expect(isNotModified({ ifModifiedSince: 'garbage' }, 't', lm)).to.equal(false);
    expect(isNotModified({ ifNoneMatch: '"u"', ifModifiedSince: httpDate(lm) }, 't', lm)).to.equal(
      false,
    );
    expect(isNotModified({}, 't', lm)).to.equal(false);
  });

  it('Accept-Encoding', () => {
    expect(acceptsGzip(undefined)).to.equal(false);
    expect(acceptsGzip('gzip')).to.equal(true);
    expect(acceptsGzip('br, GZIP;q=0.5')).to.equal(true);
    expect(acceptsGzip('gzip;q=0')).to.equal(false);
    expect(acceptsGzip('gzip; q=0.000')).to.equal(false);
    expect(acceptsGzip('*')).to.equal(true);
    expect(acceptsGzip('*;q=0')).to.equal(false);
    expect(acceptsGzip('gzip;q=0, *')).to.equal(false);
    expect(acceptsGzip('identity')).to.equal(false);
    expect(acceptsGzip('x-gzip')).to.equal(true);
  });
});
