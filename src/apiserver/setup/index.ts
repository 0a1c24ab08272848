// The served view's wiring (layer apiserver-setup): what src/cmd calls.
export { mountServedView } from './served-view.js';
export type { ServedView, ServedViewOptions, ServedViewParts } from './served-view.js';
export type { CatalogIndex, HeldRevisions } from './view-source.js';
