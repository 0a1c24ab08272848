// The review adapter against a stand-in apiserver: what it POSTs (a TokenReview with the token, a
// SubjectAccessReview of the user and the non-resource URL), how it reads the answers, and that a
// review the apiserver refuses (403: the controller may not create reviews) rejects.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { machineFor } from '../../test/support/kube-env.js';
import { accessReviews } from './access-review.js';
import { KubeClient } from './client.js';
import { KubeApiError } from './errors.js';

interface Seen {
  method: string;
  url: string;
  body: unknown;
}

/** An apiserver stand-in: answers each POST with reply(path, body) as [status, object]. */
async function apiserver(reply: (url: string, body: unknown) => [number, unknown]) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      const body = JSON.parse(text) as unknown;
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      const [status, answer] = reply(req.url ?? '', body);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const client = new KubeClient({ env: machineFor(`http://127.0.0.1:${port}`), attempts: 1 });
  return {
    seen,
    client,
    close() {
      client.close();
      server.close();
    },
  };
}

/** The user the stand-in's TokenReview authenticates, and the review reads back. */
const READER = {
  username: 'system:serviceaccount:ns:reader',
  uid: 'u-1',
  groups: ['system:serviceaccounts', 'system:authenticated'],
  extra: { 'authentication.kubernetes.io/pod-name': ['p'] },
};

describe('kube/access-review: accessReviews', () => {
  it('POSTs a TokenReview of the token and reads who it is', async () => {
    const api = await apiserver((_, body) => {
      const token = (body as { spec: { token: string } }).spec.token;
      return [
        201,
        {
          kind: 'TokenReview',
          status:
            token === 'good'
              ? {
                  authenticated: true,
                  user: READER,
                  audiences: ['https://kubernetes.default.svc'],
                }
              : { user: {}, error: 'invalid bearer token' },
        },
      ];
    });
    try {
      const reviews = accessReviews(api.client);
      expect(await reviews.reviewToken('good')).to.deep.equal({
        authenticated: true,
        user: READER,
      });
      expect(await reviews.reviewToken('bad')).to.deep.equal({
        authenticated: false,
        error: 'invalid bearer token',
      });
      expect(api.seen[0]).to.deep.equal({
        method: 'POST',
        url: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token: 'good' },
        },
      });
    } finally {
      api.close();
    }
  });

  it('POSTs a SubjectAccessReview of the user and the non-resource URL, allowed only when allowed and not denied', async () => {
    const answers = [
      { allowed: true, reason: 'RBAC: allowed' },
      { allowed: false, reason: 'no RBAC policy matched' },
      { allowed: false, denied: true, reason: 'denied by webhook' },
      { allowed: false, evaluationError: 'webhook unreachable' },
    ];
    let i = 0;
    const api = await apiserver(() => [201, { status: answers[i++] }]);
    try {
      const reviews = accessReviews(api.client);
      const user = { username: 'alice', uid: 'u-2', groups: ['devs'], extra: { k: ['v'] } };
      const attrs = { path: '/metrics', verb: 'get' };
      expect(await reviews.reviewAccess(user, attrs)).to.deep.equal({
        allowed: true,
        reason: 'RBAC: allowed',
      });
      expect(await reviews.reviewAccess(user, attrs)).to.deep.equal({
        allowed: false,
        reason: 'no RBAC policy matched',
      });
      expect(await reviews.reviewAccess(user, attrs)).to.deep.equal({
        allowed: false,
        reason: 'denied by webhook',
      });
      expect(await reviews.reviewAccess({ username: 'bob' }, attrs)).to.deep.equal({
        allowed: false,
        reason: 'webhook unreachable',
      });
      expect(api.seen[0]).to.deep.equal({
        method: 'POST',
        url: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: 'alice',
            uid: 'u-2',
            groups: ['devs'],
            extra: { k: ['v'] },
            nonResourceAttributes: { path: '/metrics', verb: 'get' },
          },
        },
      });
      expect((api.seen[3]?.body as { spec: unknown }).spec).to.deep.equal({
        user: 'bob',
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      });
    } finally {
      api.close();
    }
  });

  it('POSTs a SubjectAccessReview of a resource request with its resourceAttributes', async () => {
    const api = await apiserver(() => [201, { status: { allowed: true } }]);
    try {
      const reviews = accessReviews(api.client);
      const user = { username: 'alice', groups: ['devs'] };
      const resource = {
        verb: 'get',
        group: 'content.olm.operatorframework.io',
        version: 'v1',
        resource: 'catalogmetadata',
        name: 'sample-package-foo',
      };
      expect(await reviews.reviewAccess(user, resource)).to.deep.equal({ allowed: true });
      await reviews.reviewAccess(user, { ...resource, verb: 'list', name: '' });
      expect((api.seen[0]?.body as { spec: unknown }).spec).to.deep.equal({
        user: 'alice',
        groups: ['devs'],
        resourceAttributes: resource,
      });
      const { name: _, ...collection } = resource;
      expect((api.seen[1]?.body as { spec: unknown }).spec).to.deep.equal({
        user: 'alice',
        groups: ['devs'],
        resourceAttributes: { ...collection, verb: 'list' },
      });
    } finally {
      api.close();
    }
  });

  it('rejects when the apiserver refuses the review itself', async () => {
    const api = await apiserver(() => [
      403,
      {
        kind: 'Status',
        reason: 'Forbidden',
        message: 'tokenreviews.authentication.k8s.io is forbidden',
      },
    ]);
    try {
      const err = await accessReviews(api.client)
        .reviewToken('t')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).to.be.instanceOf(KubeApiError);
      expect((err as KubeApiError).status).to.equal(403);
    } finally {
      api.close();
    }
  });
});
