// Step 1b, the catalog's content profile (SPEC §2.2): its content-profile annotation, else the
// controller's --content-profile. A value that names no profile only a change of the annotation
// can fix: terminal (Progressing=False/Blocked), found before anything is pulled.
import type { ClusterCatalog, ContentProfile } from '../../../api/v1/index.js';
import {
  ANNOTATION_CONTENT_PROFILE,
  CONTENT_PROFILE_FULL,
  contentProfileChoices,
  isContentProfile,
} from '../../../api/v1/index.js';
import { TerminalError } from '../../../util/errors.js';
import type { ReconcileDeps } from '../ports.js';

/** What the profile is read from: the catalog and the controller's flag. */
interface ProfileSource {
  catalog: ClusterCatalog;
  deps: Pick<ReconcileDeps, 'contentProfile'>;
}

export function contentProfile(state: ProfileSource): ContentProfile {
  const value = state.catalog.metadata.annotations?.[ANNOTATION_CONTENT_PROFILE];
  if (value === undefined) return state.deps.contentProfile ?? CONTENT_PROFILE_FULL;
  if (!isContentProfile(value)) {
    const names = contentProfileChoices((p) => JSON.stringify(p));
    throw new TerminalError(
      `annotation ${ANNOTATION_CONTENT_PROFILE}: ${JSON.stringify(value)} is not a content profile (${names})`,
    );
  }
  return value;
}

export function checkContentProfile(state: ProfileSource): Promise<void> {
  contentProfile(state);
  return Promise.resolve();
}
