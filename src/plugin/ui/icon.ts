// Package icons (olm.package `icon`: base64data and mediatype) served as images. Decoded with
// Buffer (invalid base64 characters are skipped, never executed), kept only when the bytes are
// what the media type says (PNG, JPEG, GIF, WebP signatures; SVG as text) and under MAX_ICON.
// SVG is sent with a CSP that forbids scripts, and <img> never runs scripts anyway.

const MAX_ICON = 512 * 1024;

export interface DecodedIcon {
  type: string;
  body: Buffer;
}

const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1')),
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' &&
    b.subarray(8, 12).toString('latin1') === 'WEBP',
  'image/svg+xml': (b) => /<svg[\s>]/i.test(b.subarray(0, 4096).toString('utf8')),
};

/** The icon as bytes to serve, or undefined when it is missing, too big or not what it says. */
export function decodeIcon(icon: unknown): DecodedIcon | undefined {
  if (typeof icon !== 'object' || icon === null) return undefined;
  const { base64data, mediatype } = icon as Record<string, unknown>;
  if (typeof base64data !== 'string' || typeof mediatype !== 'string') return undefined;
  const type = mediatype.trim().toLowerCase();
  const check = SIGNATURES[type];
  if (!check || base64data.length > (MAX_ICON * 4) / 3 + 4) return undefined;
  const body = Buffer.from(base64data, 'base64');
  if (body.length === 0 || body.length > MAX_ICON || !check(body)) return undefined;
  return { type, body };
}
