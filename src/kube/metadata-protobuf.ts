// The events of a metadata-only watch in protobuf (`application/vnd.kubernetes.protobuf;
// stream=watch`), decoded into the shape the JSON watch has. The apiserver encodes such an event
// in fewer bytes, and without Go's JSON encoder, for every write of every watched object: the
// drift watch carries one per write of a sync (docs/architecture.md, "The drift watch in
// protobuf").
//
// The messages (k8s.io/apimachinery generated.proto; only the fields read here):
//   WatchEvent            { string type = 1; RawExtension object = 2 }
//   RawExtension          { bytes raw = 1 }  raw = "k8s\0" + Unknown
//   Unknown               { TypeMeta typeMeta = 1; bytes raw = 2 }
//   TypeMeta              { string apiVersion = 1; string kind = 2 }
//   PartialObjectMetadata { ObjectMeta metadata = 1 }
//   ObjectMeta            { name = 1; generateName = 2; namespace = 3; uid = 5;
//                           resourceVersion = 6; int64 generation = 7;
//                           Time creationTimestamp = 8; Time deletionTimestamp = 9;
//                           int64 deletionGracePeriodSeconds = 10;
//                           map labels = 11; map annotations = 12;
//                           repeated OwnerReference ownerReferences = 13;
//                           repeated string finalizers = 14;
//                           repeated ManagedFieldsEntry managedFields = 17 }
//   OwnerReference        { kind = 1; name = 3; uid = 4; apiVersion = 5; bool controller = 6;
//                           bool blockOwnerDeletion = 7 }
//   ManagedFieldsEntry    { manager = 1; operation = 2; apiVersion = 3; Time time = 4;
//                           fieldsType = 6; FieldsV1 fieldsV1 = 7 (not read); subresource = 8 }
//   Time                  { int64 seconds = 1 }
//   Status                { status = 2; message = 3; reason = 4; int32 code = 6 }
import { FrameSplitter } from './length-frames.js';
import type { ObjectMetadata } from './object-metadata.js';
import { ProtoReader, ProtobufError, WIRE_BYTES, WIRE_VARINT } from './protobuf.js';

/** What the apiserver prefixes every protobuf-encoded object with: "k8s\0", as one uint32. */
const MAGIC = 0x6b387300;
const MAGIC_BYTES = 4;

/** The Status of an ERROR event, as far as a watcher reads it. */
export interface WatchStatus {
  apiVersion?: string;
  kind: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

/** One event, in the shape of a JSON watch's line. */
export interface DecodedWatchEvent {
  type: string;
  object: ObjectMetadata | WatchStatus;
}

/**
 * What reads a protobuf watch response: its chunks in, each event out, decoded. client.ts loads
 * this module only when a response is protobuf, so that a program that never asks for one (the
 * client library) does not load the decoder.
 */
export function protobufWatchReader(onEvent: (event: DecodedWatchEvent) => void): {
  push(chunk: Buffer): void;
} {
  return new FrameSplitter((frame) => onEvent(decodeWatchEvent(frame)));
}

/**
 * Decodes one frame of a metadata-only protobuf watch. The metadata is ObjectMetadata as the
 * JSON watch returns it, except that managedFields entries carry no fieldsV1 (the drift watch
 * reads who wrote last and when, never which fields), and timestamps are RFC 3339 in seconds, as
 * the apiserver writes them in JSON.
 */
export function decodeWatchEvent(frame: Buffer): DecodedWatchEvent {
  const r = new ProtoReader(frame);
  let type = '';
  let raw: Buffer | undefined;
  while (!r.done()) {
    const key = r.key();
    if (key === field(1, WIRE_BYTES)) type = r.string();
    else if (key === field(2, WIRE_BYTES)) raw = rawExtension(r.message());
    else r.skip(key & 7);
  }
  if (raw === undefined) throw new ProtobufError(`protobuf watch event ${type}: no object`);
  return { type, object: decodeObject(raw) };
}

/** An embedded object: "k8s\0" + Unknown{typeMeta, raw}, its kind telling what raw is. */
function decodeObject(bytes: Buffer): ObjectMetadata | WatchStatus {
  if (bytes.length < MAGIC_BYTES || bytes.readUInt32BE(0) !== MAGIC) {
    throw new ProtobufError('protobuf object: no "k8s\\0" prefix');
  }
  const r = new ProtoReader(bytes, MAGIC_BYTES);
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | undefined;
  while (!r.done()) {
    const key = r.key();
    if (key === field(1, WIRE_BYTES)) {
      const t = r.message();
      while (!t.done()) {
        const k = t.key();
        if (k === field(1, WIRE_BYTES)) apiVersion = t.string();
        else if (k === field(2, WIRE_BYTES)) kind = t.string();
        else t.skip(k & 7);
      }
    } else if (key === field(2, WIRE_BYTES)) raw = r.bytes();
    else r.skip(key & 7);
  }
  const body = new ProtoReader(raw ?? Buffer.alloc(0));
  if (kind === 'Status') return { ...status(body), ...(apiVersion && { apiVersion }) };
  if (kind !== 'PartialObjectMetadata') {
    throw new ProtobufError(
      `protobuf object: kind ${kind || '(none)'}, want PartialObjectMetadata`,
    );
  }
  let metadata: ObjectMetadata['metadata'] = { name: '' };
  while (!body.done()) {
    const key = body.key();
    if (key === field(1, WIRE_BYTES)) metadata = objectMeta(body.message());
    else body.skip(key & 7);
  }
  return { apiVersion, kind, metadata };
}

function objectMeta(r: ProtoReader): ObjectMetadata['metadata'] {
  const m: ObjectMetadata['metadata'] = { name: '' };
  while (!r.done()) {
    const key = r.key();
    switch (key) {
      case field(1, WIRE_BYTES):
        m.name = r.string();
        break;
      case field(2, WIRE_BYTES):
        set(m, 'generateName', r.string());
        break;
      case field(3, WIRE_BYTES):
        set(m, 'namespace', r.string());
        break;
      case field(5, WIRE_BYTES):
        set(m, 'uid', r.string());
        break;
      case field(6, WIRE_BYTES):
        set(m, 'resourceVersion', r.string());
        break;
      case field(7, WIRE_VARINT):
        set(m, 'generation', r.varint());
        break;
      case field(8, WIRE_BYTES):
        set(m, 'creationTimestamp', time(r.message()));
        break;
      case field(9, WIRE_BYTES):
        set(m, 'deletionTimestamp', time(r.message()));
        break;
      case field(10, WIRE_VARINT):
        m.deletionGracePeriodSeconds = r.varint();
        break;
      case field(11, WIRE_BYTES):
        mapEntry(r.message(), (m.labels ??= {}));
        break;
      case field(12, WIRE_BYTES):
        mapEntry(r.message(), (m.annotations ??= {}));
        break;
      case field(13, WIRE_BYTES):
        (m.ownerReferences ??= []).push(ownerReference(r.message()));
        break;
      case field(14, WIRE_BYTES):
        (m.finalizers ??= []).push(r.string());
        break;
      case field(17, WIRE_BYTES):
        (m.managedFields ??= []).push(managedFieldsEntry(r.message()));
        break;
      default:
        r.skip(key & 7);
    }
  }
  return m;
}

/** Reads a map<string, string> entry { key = 1; value = 2 } into `into`. */
function mapEntry(r: ProtoReader, into: Record<string, string>): void {
  let k = '';
  let v = '';
  while (!r.done()) {
    const key = r.key();
    if (key === field(1, WIRE_BYTES)) k = r.string();
    else if (key === field(2, WIRE_BYTES)) v = r.string();
    else r.skip(key & 7);
  }
  into[k] = v;
}

type OwnerReference = NonNullable<ObjectMetadata['metadata']['ownerReferences']>[number];

function ownerReference(r: ProtoReader): OwnerReference {
  const o: OwnerReference = { apiVersion: '', kind: '', name: '', uid: '' };
  while (!r.done()) {
    const key = r.key();
    if (key === field(1, WIRE_BYTES)) o.kind = r.string();
    else if (key === field(3, WIRE_BYTES)) o.name = r.string();
    else if (key === field(4, WIRE_BYTES)) o.uid = r.string();
    else if (key === field(5, WIRE_BYTES)) o.apiVersion = r.string();
    else if (key === field(6, WIRE_VARINT)) o.controller = r.varint() !== 0;
    else if (key === field(7, WIRE_VARINT)) o.blockOwnerDeletion = r.varint() !== 0;
    else r.skip(key & 7);
  }
  return o;
}

type ManagedFieldsEntry = NonNullable<ObjectMetadata['metadata']['managedFields']>[number];

function managedFieldsEntry(r: ProtoReader): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = {};
  while (!r.done()) {
    const key = r.key();
    if (key === field(1, WIRE_BYTES)) set(e, 'manager', r.string());
    else if (key === field(2, WIRE_BYTES)) set(e, 'operation', r.string());
    else if (key === field(3, WIRE_BYTES)) set(e, 'apiVersion', r.string());
    else if (key === field(4, WIRE_BYTES)) set(e, 'time', time(r.message()));
    else if (key === field(6, WIRE_BYTES)) set(e, 'fieldsType', r.string());
    else if (key === field(8, WIRE_BYTES)) set(e, 'subresource', r.string());
    else r.skip(key & 7);
  }
  return e;
}

/**
 * A Time as the apiserver writes it in JSON: RFC 3339 in UTC, whole seconds. An empty message is
 * Go's zero time, null in JSON: '' (which set() leaves out).
 */
function time(r: ProtoReader): string {
  if (r.done()) return '';
  let seconds = 0;
  while (!r.done()) {
    const key = r.key();
    if (key === field(1, WIRE_VARINT)) seconds = r.varint();
    else r.skip(key & 7);
  }
  // The events of a sync carry the same few seconds over and over: format each once.
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    lastTime = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastTime;
}
let lastSeconds = NaN;
let lastTime = '';

function status(r: ProtoReader): WatchStatus {
  const s: WatchStatus = { kind: 'Status' };
  while (!r.done()) {
    const key = r.key();
    if (key === field(2, WIRE_BYTES)) set(s, 'status', r.string());
    else if (key === field(3, WIRE_BYTES)) set(s, 'message', r.string());
    else if (key === field(4, WIRE_BYTES)) set(s, 'reason', r.string());
    else if (key === field(6, WIRE_VARINT)) set(s, 'code', r.varint());
    else r.skip(key & 7);
  }
  return s;
}

function rawExtension(r: ProtoReader): Buffer {
  let raw: Buffer = Buffer.alloc(0);
  while (!r.done()) {
    const key = r.key();
    if (key === field(1, WIRE_BYTES)) raw = r.bytes();
    else r.skip(key & 7);
  }
  return raw;
}

/**
 * Sets an optional field unless it has its zero value: protobuf carries Go's empty strings and
 * zero numbers, which JSON leaves out (omitempty).
 */
function set<T, K extends keyof T>(target: T, k: K, v: T[K] & (string | number)): void {
  if (v !== '' && v !== 0) target[k] = v;
}

/** A field's key as it is on the wire. */
function field(n: number, wire: number): number {
  return n * 8 + wire;
}
