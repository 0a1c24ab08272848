import { expect } from 'chai';
import { LABEL_METADATA_NAME } from './clustercatalog.js';
import { metadataNameLabelPatch } from './metadatalabel.js';

describe('metadata.name label', () => {
  it('is patched in when missing or wrong', () => {
    expect(metadataNameLabelPatch({ name: 'operatorhubio' })).to.deep.equal({
      [LABEL_METADATA_NAME]: 'operatorhubio',
    });
    expect(
      metadataNameLabelPatch({ name: 'a', labels: { [LABEL_METADATA_NAME]: 'b', other: 'x' } }),
    ).to.deep.equal({
      [LABEL_METADATA_NAME]: 'a',
    });
  });

  it('needs no write when present', () => {
    expect(metadataNameLabelPatch({ name: 'a', labels: { [LABEL_METADATA_NAME]: 'a' } })).to.equal(
      undefined,
    );
  });
});
