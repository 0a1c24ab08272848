// RequestInfo as the apiserver's RequestInfoResolver reads it: table-driven over the paths,
// methods and queries the served API sees (k8s.io/apiserver requestinfo_test.go's cases that
// apply to a cluster-scoped group).
import { expect } from 'chai';
import type { RequestInfo } from '../ports.js';
import { requestInfo } from './request-info.js';

const G = 'content.olm.operatorframework.io';
const base = `/apis/${G}/v1`;

const info = (method: string, pathAndQuery: string): RequestInfo =>
  requestInfo(method, new URL(pathAndQuery, 'https://front.test'));

type Expected = Partial<RequestInfo>;

describe('apiserver/front/request-info', () => {
  const resourceCases: Array<[string, string, Expected]> = [
    ['GET', `${base}/catalogmetadata`, { verb: 'list', resource: 'catalogmetadata' }],
    ['GET', `${base}/catalogmetadata?watch=true`, { verb: 'watch' }],
    ['GET', `${base}/catalogmetadata?watch=1`, { verb: 'watch' }],
    ['GET', `${base}/catalogmetadata?watch=True`, { verb: 'watch' }],
    ['GET', `${base}/catalogmetadata?watch=false`, { verb: 'list' }],
    ['GET', `${base}/catalogmetadata?watch=yes`, { verb: 'list' }],
    ['HEAD', `${base}/catalogmetadata`, { verb: 'list' }],
    ['GET', `${base}/catalogmetadata/a`, { verb: 'get', name: 'a' }],
    ['GET', `${base}/catalogmetadata/a?watch=true`, { verb: 'get', name: 'a' }],
    ['GET', `${base}/catalogmetadata/a/status`, { verb: 'get', name: 'a', subresource: 'status' }],
    ['GET', `${base}/watch/catalogmetadata`, { verb: 'watch', resource: 'catalogmetadata' }],
    ['GET', `${base}/watch/catalogmetadata/a`, { verb: 'watch', name: 'a' }],
    ['GET', `${base}/proxy/catalogmetadata/a/b`, { verb: 'proxy', name: 'a', subresource: '' }],
    ['POST', `${base}/catalogmetadata`, { verb: 'create' }],
    ['PUT', `${base}/catalogmetadata/a`, { verb: 'update', name: 'a' }],
    ['PATCH', `${base}/catalogmetadata/a?dryRun=All`, { verb: 'patch', name: 'a' }],
    ['DELETE', `${base}/catalogmetadata/a`, { verb: 'delete', name: 'a' }],
    ['DELETE', `${base}/catalogmetadata`, { verb: 'deletecollection', name: '' }],
    ['OPTIONS', `${base}/catalogmetadata`, { verb: '' }],
    // A list for one name is authorized as a get of that name would be (its name is kept).
    ['GET', `${base}/catalogmetadata?fieldSelector=metadata.name%3Dx`, { verb: 'list', name: 'x' }],
    [
      'GET',
      `${base}/catalogmetadata?watch=1&fieldSelector=metadata.name%3D%3Dx`,
      { verb: 'watch', name: 'x' },
    ],
    ['GET', `${base}/catalogmetadata?fieldSelector=spec.schema%3Dx`, { verb: 'list', name: '' }],
    [
      'GET',
      `${base}/namespaces/ns/catalogmetadata/a`,
      { verb: 'get', resource: 'catalogmetadata', name: 'a' },
    ],
    ['GET', '/api/v1/namespaces', { apiGroup: '', apiVersion: 'v1', resource: 'namespaces' }],
    ['GET', `${base}/catalogmetadata/`, { verb: 'list', resource: 'catalogmetadata' }],
  ];
  for (const [method, url, want] of resourceCases) {
    it(`${method} ${url}: a resource request, ${JSON.stringify(want)}`, () => {
      const got = info(method, url);
      expect(got.isResourceRequest).to.equal(true);
      const defaults = { apiGroup: G, apiVersion: 'v1', subresource: '', name: '' };
      for (const [k, v] of Object.entries({ ...defaults, ...want }))
        expect(got[k as keyof RequestInfo], k).to.equal(v);
      expect(got.path).to.equal(new URL(url, 'https://x').pathname);
    });
  }

  const nonResourceCases: Array<[string, string, string]> = [
    ['GET', '/apis', 'get'],
    ['GET', `/apis/${G}`, 'get'],
    ['GET', base, 'get'],
    ['GET', '/api', 'get'],
    ['GET', '/api/v1', 'get'],
    ['GET', '/openapi/v3/apis/content.olm.operatorframework.io/v1', 'get'],
    ['GET', '/openapi/v2', 'get'],
    ['HEAD', '/version', 'head'],
    ['POST', '/healthz', 'post'],
    ['GET', '/', 'get'],
  ];
  for (const [method, url, verb] of nonResourceCases) {
    it(`${method} ${url}: a non-resource request, verb ${verb}`, () => {
      expect(info(method, url)).to.deep.equal({
        isResourceRequest: false,
        path: new URL(url, 'https://x').pathname,
        verb,
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        name: '',
      });
    });
  }
});
