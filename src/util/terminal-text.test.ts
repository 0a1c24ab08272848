import { expect } from 'chai';
import { displayName, jsonText, quoteText, terminalLine, terminalText } from './terminal-text.js';

/** What an attacker writes into a catalog string to act on the reader's terminal. */
export const HOSTILE = {
  /** OSC 52: writes "pwned" to the clipboard. */
  clipboard: '\x1b]52;c;cHduZWQ=\x07',
  /** OSC 0: sets the window title. */
  title: '\x1b]0;owned\x07',
  /** CSI 2J and CSI H: clears the screen. */
  clear: '\x1b[2J\x1b[H',
  /** Cursor up and erase the line: hides the line printed before. */
  hide: '\x1b[1A\x1b[2K',
  /** The one-character C1 CSI (U+009B) that some terminals obey: erase the screen. */
  c1: '\u009b2J',
  /** Right-to-left override: what follows shows reversed. */
  bidi: '\u202e',
};

/** Whether s holds a character the rule escapes. */
const unsafe = (s: string) =>
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(s);

describe('util/terminal-text: the escaping rule for catalog strings', () => {
  it('writes C0 controls in caret notation (ESC as ^[, as kubectl) and DEL as ^?', () => {
    expect(terminalLine(HOSTILE.clipboard)).to.equal('^[]52;c;cHduZWQ=^G');
    expect(terminalLine(HOSTILE.title)).to.equal('^[]0;owned^G');
    expect(terminalLine(HOSTILE.clear)).to.equal('^[[2J^[[H');
    expect(terminalLine(HOSTILE.hide)).to.equal('^[[1A^[[2K');
    expect(terminalLine('\x00\x08\r\x7f')).to.equal('^@^H^M^?');
  });

  it('writes C1 controls and the bidi controls as <U+XXXX>', () => {
    expect(terminalLine(HOSTILE.c1)).to.equal('<U+009B>2J');
    expect(terminalLine(`a${HOSTILE.bidi}b\u2066c\u061c\u200e\u200f\u0080\u009f`)).to.equal(
      'a<U+202E>b<U+2066>c<U+061C><U+200E><U+200F><U+0080><U+009F>',
    );
  });

  it('one line: tab and newline too; multi-line text keeps them', () => {
    expect(terminalLine('a\tb\nc')).to.equal('a^Ib^Jc');
    expect(terminalText('a\tb\nc\r\x1b')).to.equal('a\tb\nc^M^[');
  });

  it('keeps every other character, and is idempotent', () => {
    const plain = 'demo-operator.v1.2.0 (>=1.0.0 <1.2.0) ünïcødé 😀 "quoted" ^[ \u00a0\u00a1';
    expect(terminalLine(plain)).to.equal(plain);
    for (const s of Object.values(HOSTILE)) {
      expect(unsafe(terminalLine(s))).to.equal(false);
      expect(terminalLine(terminalLine(s))).to.equal(terminalLine(s));
      expect(terminalText(terminalText(s))).to.equal(terminalText(s));
    }
  });

  it('escapes a megabyte of escapes whole (one pass over the text)', () => {
    const big = HOSTILE.clear.repeat(150_000);
    // Each ESC becomes two characters.
    expect(terminalLine(big)).to.equal('^[[2J^[[H'.repeat(150_000));
  });

  it('quoteText: a JSON string literal without raw C0, DEL, C1 or bidi controls', () => {
    const s = `a"b\\c\nd${HOSTILE.clipboard}${HOSTILE.c1}\x7f${HOSTILE.bidi}`;
    const q = quoteText(s);
    expect(unsafe(q)).to.equal(false);
    expect(q).to.not.include('\n');
    expect(q).to.include('\\u009b2J');
    expect(q).to.include('\\u007f');
    expect(q).to.include('\\u202e');
    expect(JSON.parse(q)).to.equal(s);
    expect(quoteText('catalog.json')).to.equal('"catalog.json"');
  });

  it('jsonText: valid JSON equal to the value when parsed, with C1, DEL and bidi escaped', () => {
    const doc = {
      [`key${HOSTILE.c1}`]: [`v${HOSTILE.c1}${HOSTILE.clipboard}\x7f${HOSTILE.bidi}`, 1, null],
      plain: 'ünïcødé',
    };
    const text = jsonText(doc);
    expect(unsafe(text.replaceAll('\n', ''))).to.equal(false);
    expect(JSON.parse(text)).to.deep.equal(doc);
    expect(text).to.include('"key\\u009b2J"');
    expect(text).to.include('\\u001b]52;c;cHduZWQ=\\u0007');
    // JSON.stringify leaves them raw: the reason for the post-processing.
    expect(JSON.stringify(doc)).to.include('\u009b');
    // Ordinary documents are JSON.stringify's, byte for byte.
    const ordinary = { items: [{ name: 'demo', n: 2, ok: true, note: 'ünïcødé' }] };
    expect(jsonText(ordinary)).to.equal(JSON.stringify(ordinary, null, 2));
  });

  it('displayName: ordinary names bare, any other name quoted', () => {
    for (const f of ['catalog.json', 'demo/index.yaml', 'pkgs/ünïcødé-op/v1.0.0+build.yaml'])
      expect(displayName(f)).to.equal(f);
    expect(displayName('evil\n.json')).to.equal('"evil\\n.json"');
    expect(displayName(`x${HOSTILE.clear}.json`)).to.equal('"x\\u001b[2J\\u001b[H.json"');
    expect(displayName(`x${HOSTILE.c1}.json`)).to.equal('"x\\u009b2J.json"');
    expect(displayName('a b.json')).to.equal('"a b.json"');
    expect(displayName('a.json:1:1: fake')).to.equal('"a.json:1:1: fake"');
    expect(displayName('a"b')).to.equal('"a\\"b"');
    expect(displayName(`a${HOSTILE.bidi}b`)).to.equal('"a\\u202eb"');
    expect(displayName('')).to.equal('""');
  });
});
