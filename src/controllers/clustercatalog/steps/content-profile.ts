// Step 3, the catalog's content profile (SPEC §2.2): its content-profile annotation, else the
// controller's --content-profile, decided once and carried in the state. A value that names no
// profile only a change of the annotation can fix: terminal (Progressing=False/Blocked), found
// before anything is pulled.
import type { ContentProfile } from '../../../api/v1/index.js';
import {
  ANNOTATION_CONTENT_PROFILE,
  CONTENT_PROFILE_FULL,
  contentProfileChoices,
  isContentProfile,
} from '../../../api/v1/index.js';
import { TerminalError } from '../../../util/errors.js';
import type { ReconcileState, Step } from '../pipeline/state.js';

export const decideContentProfile: Step = (state) => {
  state.profile = contentProfile(state);
  return Promise.resolve();
};

function contentProfile(state: ReconcileState): ContentProfile {
  const value = state.catalog.metadata.annotations?.[ANNOTATION_CONTENT_PROFILE];
  if (value === undefined) return state.deps.settings.contentProfile ?? CONTENT_PROFILE_FULL;
  if (!isContentProfile(value)) {
    const names = contentProfileChoices((p) => JSON.stringify(p));
    throw new TerminalError(
      `annotation ${ANNOTATION_CONTENT_PROFILE}: ${JSON.stringify(value)} is not a content profile (${names})`,
    );
  }
  return value;
}
