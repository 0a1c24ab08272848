import { expect } from 'chai';
import {
  ProtoReader,
  ProtobufError,
  WIRE_BYTES,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_VARINT,
} from './protobuf.js';

const bytes = (...b: number[]) => Buffer.from(b);

describe('kube/protobuf: ProtoReader', () => {
  it('reads varints of one to eight bytes, exactly up to 2^53', () => {
    const r = new ProtoReader(
      bytes(
        0x00,
        0x01,
        0x96,
        0x01,
        0xff,
        0xff,
        0xff,
        0xff,
        0x0f,
        0x80,
        0x80,
        0x80,
        0x80,
        0x80,
        0x80,
        0x80,
        0x10,
      ),
    );
    expect([r.varint(), r.varint(), r.varint(), r.varint(), r.varint()]).to.deep.equal([
      0,
      1,
      150,
      2 ** 32 - 1,
      2 ** 53,
    ]);
    expect(r.done()).to.equal(true);
  });

  it('reads keys, strings and embedded messages, and skips every wire type it does not read', () => {
    // 1: "hé" (bytes); 2: varint 300; 3: fixed64; 4: fixed32; 5: { 1: "x" }; 6: "end"
    const msg = Buffer.concat([
      bytes(0x0a, 0x03),
      Buffer.from('hé'),
      bytes(0x10, 0xac, 0x02),
      bytes(0x19, 1, 2, 3, 4, 5, 6, 7, 8),
      bytes(0x25, 1, 2, 3, 4),
      bytes(0x2a, 0x03, 0x0a, 0x01, 0x78),
      bytes(0x32, 0x03),
      Buffer.from('end'),
    ]);
    const r = new ProtoReader(msg);
    let key = r.key();
    expect([key >>> 3, key & 7]).to.deep.equal([1, WIRE_BYTES]);
    expect(r.string()).to.equal('hé');
    for (const wire of [WIRE_VARINT, WIRE_FIXED64, WIRE_FIXED32]) {
      key = r.key();
      expect(key & 7).to.equal(wire);
      r.skip(wire);
    }
    key = r.key();
    expect(key >>> 3).to.equal(5);
    const inner = r.message();
    expect(inner.key()).to.equal(0x0a);
    expect(inner.string()).to.equal('x');
    expect(inner.done()).to.equal(true);
    key = r.key();
    r.skip(key & 7);
    expect(r.done()).to.equal(true);
  });

  it('refuses what is cut short or of a wire type it cannot skip, instead of reading past it', () => {
    expect(() => new ProtoReader(bytes(0x96)).varint()).to.throw(ProtobufError, /truncated varint/);
    expect(() => new ProtoReader(bytes(0x0a, 0x05, 0x61)).bytes()).to.throw(
      ProtobufError,
      /truncated field/,
    );
    expect(() => new ProtoReader(bytes(1, 2, 3)).skip(WIRE_FIXED64)).to.throw(ProtobufError);
    expect(() => new ProtoReader(bytes()).skip(3)).to.throw(ProtobufError, /wire type 3/);
    expect(() => new ProtoReader(bytes(...new Array<number>(11).fill(0x80))).varint()).to.throw(
      ProtobufError,
      /longer than 10 bytes/,
    );
    // An embedded message ends where its length says, not at the buffer's end.
    const outer = new ProtoReader(bytes(0x02, 0x08, 0x01, 0x08, 0x02));
    const inner = outer.message();
    expect([inner.key(), inner.varint(), inner.done()]).to.deep.equal([0x08, 1, true]);
  });
});
