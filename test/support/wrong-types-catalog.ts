// A catalog whose author puts a value of the wrong JSON type in every field the client library
// reads (SPEC §5.2: such a field is absent, never a crash). The object `{"toString": 1}` is the
// sharpest: `${v}`, String(v) and v.join() throw on it.
import type { AnyBlob } from '../../src/client/index.js';

/** Throws when made a string. */
export const TO_STRING = { toString: 1 };

export const CHAOS_PACKAGE = 'chaos-operator';
export const CHAOS_CHANNEL = 'stable';
export const CHAOS_BUNDLES = ['chaos.v1.0.0', 'chaos.v1.1.0', 'chaos.v1.2.0'] as const;
export const CHAOS_GVK = 'chaos.example.com/v1/Chaos';

const [B1, B2, B3] = CHAOS_BUNDLES;

const chaosCsv = {
  displayName: TO_STRING,
  description: [TO_STRING],
  provider: { name: TO_STRING, url: 5 },
  keywords: [TO_STRING, 'chaos', 7],
  maturity: TO_STRING,
  minKubeVersion: TO_STRING,
  installModes: [TO_STRING, null, { type: TO_STRING, supported: 'true' }],
  links: [TO_STRING, { name: TO_STRING, url: [] }],
  maintainers: 'Mallory',
  annotations: {
    categories: TO_STRING,
    capabilities: [TO_STRING],
    'features.operators.openshift.io/disconnected': TO_STRING,
    'operators.openshift.io/infrastructure-features': TO_STRING,
  },
  labels: { 'operatorframework.io/arch.amd64': TO_STRING, 'operatorframework.io/os.linux': 1 },
};

export const CHAOS_BLOBS: AnyBlob[] = [
  {
    schema: 'olm.package',
    name: CHAOS_PACKAGE,
    defaultChannel: CHAOS_CHANNEL,
    description: TO_STRING,
    icon: { base64data: TO_STRING, mediatype: 5 },
  },
  {
    schema: 'olm.channel',
    package: CHAOS_PACKAGE,
    name: CHAOS_CHANNEL,
    entries: [
      { name: B1, replaces: TO_STRING, skips: TO_STRING, skipRange: TO_STRING },
      { name: B2, replaces: B1, skips: [TO_STRING, 5, null], skipRange: 5 },
      { name: B3, replaces: B2, skips: [B1, TO_STRING], skipRange: ['>=1.0.0'] },
      TO_STRING,
      null,
      { name: TO_STRING, replaces: B3 },
    ],
  },
  // A channel whose entries are not a list: a channel with no entries.
  { schema: 'olm.channel', package: CHAOS_PACKAGE, name: 'broken', entries: TO_STRING },
  {
    schema: 'olm.bundle',
    package: CHAOS_PACKAGE,
    name: B1,
    image: TO_STRING,
    properties: TO_STRING,
    relatedImages: TO_STRING,
  },
  {
    schema: 'olm.bundle',
    package: CHAOS_PACKAGE,
    name: B2,
    image: 5,
    properties: [
      null,
      TO_STRING,
      { type: TO_STRING, value: 1 },
      { type: 'olm.package', value: { packageName: CHAOS_PACKAGE, version: TO_STRING } },
      { type: 'olm.gvk', value: { group: TO_STRING, version: 'v1', kind: 'Chaos' } },
      { type: 'olm.csv.metadata', value: TO_STRING },
      { type: 'olm.maxOpenShiftVersion', value: TO_STRING },
    ],
    relatedImages: [TO_STRING, { name: TO_STRING, image: 'quay.io/chaos/op:1' }],
  },
  {
    schema: 'olm.bundle',
    package: CHAOS_PACKAGE,
    name: B3,
    image: 'quay.io/chaos/bundle:v1.2.0',
    properties: [
      { type: 'olm.package', value: { packageName: CHAOS_PACKAGE, version: '1.2.0' } },
      { type: 'olm.gvk', value: { group: 'chaos.example.com', version: 'v1', kind: 'Chaos' } },
      { type: 'olm.csv.metadata', value: chaosCsv },
      { type: 'olm.maxOpenShiftVersion', value: TO_STRING },
      { type: 'olm.bundle.object', value: { data: TO_STRING } },
    ],
  },
  {
    schema: 'olm.deprecations',
    package: CHAOS_PACKAGE,
    entries: [
      { reference: { schema: 'olm.package' }, message: TO_STRING },
      { reference: { schema: 'olm.channel', name: TO_STRING }, message: 'never matches' },
      { reference: { schema: 'olm.channel', name: CHAOS_CHANNEL }, message: [TO_STRING] },
      { reference: { schema: 'olm.bundle', name: B1 }, message: 5 },
      { reference: TO_STRING, message: 'no reference' },
      null,
      TO_STRING,
    ],
  },
];
