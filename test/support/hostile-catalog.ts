// A catalog whose author attacks the terminal of whoever reads it (SPEC §5.2): every string the
// plugin shows carries a control sequence. For the tests of the escaping rule
// (src/util/terminal-text.ts) as `kubectl catalog` applies it.
import type { AnyBlob } from '../../src/client/index.js';

/** Sequences a terminal obeys. */
export const SEQ = {
  /** OSC 52: writes "pwned" to the clipboard. */
  clipboard: '\x1b]52;c;cHduZWQ=\x07',
  /** OSC 0: sets the window title. */
  title: '\x1b]0;owned\x07',
  /** Clears the screen. */
  clear: '\x1b[2J\x1b[H',
  /** Cursor up, erase the line: hides the line printed before (e.g. a warning). */
  hide: '\x1b[1A\x1b[2K',
  /** The one-character C1 CSI: erases the screen on terminals that take C1 controls. */
  c1: '\u009b2J',
  /** Right-to-left override. */
  bidi: '\u202e',
};

/**
 * Any character the rule escapes, but newline (and tab when `tabs`): what must never reach a
 * terminal raw.
 */
export function rawControls(text: string, tabs = false): string[] {
  const re =
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  return [...text.matchAll(re)].map((m) => m[0]).filter((c) => !(tabs && c === '\t'));
}

export const HOSTILE_PACKAGE = 'evil-operator';
export const HOSTILE_CHANNEL = `stable${SEQ.c1}`;
export const HOSTILE_BUNDLES = [`evil.v1.0.0${SEQ.title}`, `evil.v2.0.0${SEQ.clear}`] as const;
export const HOSTILE_GVK = 'evil.example.com/v1/Evil';

const [B1, B2] = HOSTILE_BUNDLES;
const gvk = { type: 'olm.gvk', value: { group: 'evil.example.com', version: 'v1', kind: 'Evil' } };
const version = (v: string) => ({
  type: 'olm.package',
  value: { packageName: HOSTILE_PACKAGE, version: v },
});

export const HOSTILE_BLOBS: AnyBlob[] = [
  {
    schema: 'olm.package',
    name: HOSTILE_PACKAGE,
    defaultChannel: HOSTILE_CHANNEL,
    description: `Evil.${SEQ.clipboard}`,
  },
  {
    schema: 'olm.channel',
    package: HOSTILE_PACKAGE,
    name: HOSTILE_CHANNEL,
    entries: [
      { name: B1 },
      // An unparsable skipRange: its warning quotes it.
      { name: B2, replaces: B1, skipRange: `<2.0.0${SEQ.hide}` },
    ],
  },
  {
    schema: 'olm.bundle',
    package: HOSTILE_PACKAGE,
    name: B1,
    image: `quay.io/evil/bundle:v1${SEQ.clipboard}`,
    properties: [version('1.0.0'), gvk],
  },
  {
    schema: 'olm.bundle',
    package: HOSTILE_PACKAGE,
    name: B2,
    image: `quay.io/evil/bundle:v2${SEQ.c1}`,
    properties: [
      version('2.0.0'),
      gvk,
      {
        type: 'olm.csv.metadata',
        value: {
          displayName: `Evil${SEQ.clear}`,
          description: `The CSV's description.${SEQ.clipboard}\n\nSecond paragraph${SEQ.title}.\r\nTabbed\tline.`,
          provider: { name: `Evil Corp${SEQ.c1}`, url: `https://evil.example${SEQ.title}` },
          keywords: [`evil${SEQ.bidi}`],
          maturity: `alpha${SEQ.hide}`,
          minKubeVersion: `1.20.0${SEQ.c1}`,
          installModes: [{ type: 'AllNamespaces', supported: true }],
          links: [{ name: `Docs${SEQ.clear}`, url: `https://docs${SEQ.c1}` }],
          maintainers: [{ name: `Mallory${SEQ.title}`, email: `m@evil${SEQ.clipboard}` }],
          annotations: {
            categories: `Security${SEQ.title}`,
            capabilities: `Basic Install${SEQ.c1}`,
            [`features.operators.openshift.io/evil${SEQ.clear}`]: 'true',
          },
          labels: { [`operatorframework.io/arch.amd64${SEQ.c1}`]: 'supported' },
        },
      },
    ],
  },
  {
    schema: 'olm.deprecations',
    package: HOSTILE_PACKAGE,
    entries: [
      // Hides its own warning, and the line before it.
      { reference: { schema: 'olm.package' }, message: `${SEQ.hide}${SEQ.hide}` },
      { reference: { schema: 'olm.channel', name: HOSTILE_CHANNEL }, message: `frozen${SEQ.hide}` },
      { reference: { schema: 'olm.bundle', name: B1 }, message: `old${SEQ.title}\nerror: forged` },
    ],
  },
];
