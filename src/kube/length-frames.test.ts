import { expect } from 'chai';
import { FrameSplitter, MAX_FRAME_BYTES } from './length-frames.js';
import { ProtobufError } from './protobuf.js';

function framed(...payloads: string[]): Buffer {
  return Buffer.concat(
    payloads.flatMap((p) => {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(Buffer.byteLength(p));
      return [len, Buffer.from(p)];
    }),
  );
}

describe('kube/length-frames: FrameSplitter', () => {
  const payloads = ['first', '', 'x'.repeat(300), 'last'];
  const stream = framed(...payloads);

  it('hands over every frame whole, wherever the chunks cut the stream', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const got: string[] = [];
      const frames = new FrameSplitter((f) => got.push(f.toString()));
      frames.push(stream.subarray(0, cut));
      frames.push(stream.subarray(cut));
      expect(got, `cut at ${cut}`).to.deep.equal(payloads);
      expect(frames.pending).to.equal(0);
    }
  });

  it('joins a frame spread over many one-byte chunks, and says what is pending meanwhile', () => {
    const got: string[] = [];
    const frames = new FrameSplitter((f) => got.push(f.toString()));
    const one = framed('a frame in pieces');
    for (let i = 0; i < one.length - 1; i++) frames.push(one.subarray(i, i + 1));
    expect(got).to.deep.equal([]);
    expect(frames.pending).to.equal(one.length - 1);
    frames.push(one.subarray(one.length - 1));
    expect(got).to.deep.equal(['a frame in pieces']);
    expect(frames.pending).to.equal(0);
  });

  it('refuses a length over the bound rather than buffering for it', () => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(MAX_FRAME_BYTES + 1);
    expect(() => new FrameSplitter(() => {}).push(len)).to.throw(ProtobufError, /over/);
  });
});
