import { expect } from 'chai';
import { DEFAULT_YAML_LIMITS, YamlDocError, yamlDocToJSON } from './yaml-doc.js';

function err(src: string): YamlDocError {
  try {
    yamlDocToJSON(src);
  } catch (e) {
    if (e instanceof YamlDocError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('fbc/yaml-doc: YAML documents as operator-registry converts them to JSON', () => {
  it('an empty or comment-only document is null', () => {
    expect(yamlDocToJSON('')).to.equal(null);
    expect(yamlDocToJSON('# only a comment\n')).to.equal(null);
  });

  it('quoted and block scalars are strings', () => {
    expect(yamlDocToJSON('a: "yes"\nb: \'0755\'\nc: |\n  on\nd: >\n  12\n')).to.deep.equal({
      a: 'yes',
      b: '0755',
      c: 'on\n',
      d: '12\n',
    });
  });

  it('stringifies non-string keys (y is a bool key, "true")', () => {
    expect(yamlDocToJSON('1: a\n1.5: b\ntrue: c\ny: d\n0x10: e\n')).to.deep.equal({
      '1': 'a',
      '1.5': 'b',
      true: 'd',
      '16': 'e',
    });
  });

  it('rejects collection keys and null keys', () => {
    expect(err('? [a]\n: b\n').reason).to.match(/invalid map key/);
    expect(err('? {a: 1}\n: b\n').reason).to.match(/invalid map key/);
    expect(err('~: b\n').reason).to.match(/unsupported map key of type: <nil>/);
  });

  it('lets the last duplicate key win (js-yaml: error)', () => {
    expect(yamlDocToJSON('a: 1\na: 2\n')).to.deep.equal({ a: 2 });
  });

  it('applies merge keys in order, like goyaml v2 (not the YAML merge spec)', () => {
    const doc = yamlDocToJSON(
      'base: &b {a: 1, b: 2}\nafter: {a: 9, <<: *b}\nbefore: {<<: *b, a: 9}\nseq: {<<: [{x: 1}, {x: 2, z: 2}]}\ntagged: {!!merge <<: {m: 1}}\n',
    );
    expect(doc).to.deep.equal({
      base: { a: 1, b: 2 },
      after: { a: 1, b: 2 },
      before: { a: 9, b: 2 },
      seq: { x: 1, z: 2 },
      tagged: { m: 1 },
    });
  });

  it('rejects merging a scalar', () => {
    expect(err('a: {<<: 1}\n').reason).to.equal(
      'map merge requires map or sequence of maps as the value',
    );
    expect(err('a: {<<: [1]}\n').reason).to.equal(
      'map merge requires map or sequence of maps as the value',
    );
  });

  it('decodes !!binary into a string (invalid UTF-8 replaced), and rejects bad base64', () => {
    expect(yamlDocToJSON('a: !!binary aGVsbG8=\nb: !!binary |\n  aGVs\n  bG8=\n')).to.deep.equal({
      a: 'hello',
      b: 'hello',
    });
    expect(yamlDocToJSON('a: !!binary /w==\n')).to.deep.equal({ a: '\uFFFD' });
    expect(err('a: !!binary "not base64"\n').reason).to.match(/invalid base64/);
  });

  it('resolves aliases to the anchored value', () => {
    expect(yamlDocToJSON('a: &x {k: [1, 2]}\nb: *x\nc: &s yes\nd: *s\n')).to.deep.equal({
      a: { k: [1, 2] },
      b: { k: [1, 2] },
      c: true,
      d: true,
    });
  });

  it('an anchored .inf can be a key but not a value', () => {
    expect(yamlDocToJSON('? &i .inf\n: 1\n')).to.deep.equal({ '.inf': 1 });
    expect(err('a: &i .inf\nb: *i\n').reason).to.match(/unsupported value: \+Inf/);
  });

  it('rejects an alias bomb', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    expect(err(lines.join('\n')).reason).to.match(/excessive aliasing|aliases expand/);
  });

  it('rejects an unknown alias, with its offset', () => {
    const e = err('a: 1\nb: *nope\n');
    expect(e.reason).to.match(/unknown anchor 'nope'/);
    expect(e.offset).to.equal(9);
  });

  it('reports syntax errors with an offset', () => {
    const e = err('a: 1\nb: [1, 2\nc: 3\n');
    expect(e.offset).to.be.greaterThan(4);
  });

  it('replaces lone surrogates from escapes with U+FFFD, like Go', () => {
    expect(yamlDocToJSON('a: "\\ud800x"\n')).to.deep.equal({ a: '\uFFFDx' });
  });

  it('keeps a __proto__ key as data', () => {
    const v = yamlDocToJSON('__proto__: {polluted: true}\n') as Record<string, unknown>;
    expect(Object.keys(v)).to.deep.equal(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('enforces the nesting limit', () => {
    const deep = 'a: ' + '['.repeat(50) + ']'.repeat(50);
    expect(() => yamlDocToJSON(deep, { ...DEFAULT_YAML_LIMITS, maxDepth: 10 })).to.throw(
      YamlDocError,
    );
    expect(yamlDocToJSON(deep, { ...DEFAULT_YAML_LIMITS, maxDepth: 100 })).to.have.property('a');
  });
});
