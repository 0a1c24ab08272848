// Image references as the source uses them: the API's grammar (src/api/v1/imageref-grammar.ts),
// an invalid one reported as a terminal InvalidReference; and whether a registry host is reached
// over plain HTTP.
import {
  InvalidImageReference,
  parseImageReference,
  type ImageReference,
} from '../api/v1/imageref-grammar.js';
import { terminal } from './errors.js';

export {
  formatReference,
  referenceName,
  withDigest,
  type ImageReference,
} from '../api/v1/imageref-grammar.js';

/** parseImageReference, its refusal a terminal SourceError (InvalidReference). */
export function parseReference(input: string): ImageReference {
  try {
    return parseImageReference(input);
  } catch (err) {
    if (err instanceof InvalidImageReference) throw terminal('InvalidReference', err.message);
    throw err;
  }
}

/** Whether a registry host is a loopback address, reached over plain HTTP as Docker does. */
export function isLoopbackHost(hostPort: string): boolean {
  let host = hostPort;
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']'));
  else if (host.includes(':')) host = host.slice(0, host.lastIndexOf(':'));
  host = host.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
