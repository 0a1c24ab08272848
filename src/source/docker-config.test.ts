import { expect } from 'chai';
import { errorChain } from '../util/errors.js';
import { findCredentials, parseDockerConfigJSON } from './docker-config.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('source/docker-config', () => {
  const a = parseDockerConfigJSON(
    JSON.stringify({
      auths: {
        'https://index.docker.io/v1/': { auth: b64('hub:hubpw') },
        'quay.io': { username: 'q', password: 'qpw' },
        'quay.io/team/special': { auth: b64('special:sp:with:colons') },
        '*.corp.example': { auth: b64('corp:c') },
        'nocreds.example': {},
      },
    }),
  );
  const b = parseDockerConfigJSON(
    JSON.stringify({
      auths: { 'quay.io': { auth: b64('second:x') }, 'other.io': { auth: b64('o:o') } },
    }),
  );

  it('finds credentials by host, most specific path first', () => {
    expect(findCredentials([a], 'quay.io', 'team/x')).to.deep.equal({
      username: 'q',
      password: 'qpw',
    });
    expect(findCredentials([a], 'quay.io', 'team/special/cat')).to.deep.equal({
      username: 'special',
      password: 'sp:with:colons',
    });
    expect(findCredentials([a], 'registry-1.docker.io', 'library/busybox')?.username).to.equal(
      'hub',
    );
    expect(findCredentials([a], 'reg.corp.example', 'x')?.username).to.equal('corp');
    expect(findCredentials([a], 'a.b.corp.example', 'x')).to.equal(undefined);
    expect(findCredentials([a], 'nocreds.example', 'x')).to.equal(undefined);
  });

  it('tries configs in order', () => {
    expect(findCredentials([a, b], 'quay.io', 'x')?.username).to.equal('q');
    expect(findCredentials([b, a], 'quay.io', 'x')?.username).to.equal('second');
    expect(findCredentials([a, b], 'other.io', 'x')?.username).to.equal('o');
  });

  it('rejects malformed JSON', () => {
    expect(() => parseDockerConfigJSON('{')).to.throw(/not valid JSON/);
    expect(() => parseDockerConfigJSON('{"auths": 3}')).to.throw(/auths/);
  });

  it('quotes none of a secret that is not JSON in its message, causes included', () => {
    let err: unknown;
    try {
      parseDockerConfigJSON('hunter2 is not json');
    } catch (e) {
      err = e;
    }
    expect(errorChain(err)).to.equal('pull secret: .dockerconfigjson is not valid JSON');
  });
});
