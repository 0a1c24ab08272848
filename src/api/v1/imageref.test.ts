import { expect } from 'chai';
import { DIGEST_REF_RULES, TAG_OR_DIGEST_REF_RULES, isDigestRef } from './imageref.js';

describe('image reference rules', () => {
  it('tells digest references from tag references as the CEL rules do', () => {
    expect(isDigestRef('quay.io/operatorhubio/catalog@sha256:' + 'a'.repeat(64))).to.equal(true);
    expect(isDigestRef('quay.io/operatorhubio/catalog:latest')).to.equal(false);
    expect(isDigestRef('localhost:5000/catalog:v1')).to.equal(false);
  });

  it('gives every rule a message, and no two rules the same message', () => {
    for (const rules of [TAG_OR_DIGEST_REF_RULES, DIGEST_REF_RULES]) {
      const messages = rules.map((r) => r.message);
      expect(messages.every((m) => m.length > 0)).to.equal(true);
      expect(new Set(messages).size).to.equal(messages.length);
    }
  });
});
