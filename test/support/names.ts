// Unique, DNS-1123-valid names, so tests never see each other's objects in the shared cluster.
import { randomBytes } from 'node:crypto';

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}
