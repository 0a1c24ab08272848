// The table of `catalogd` subcommands: one entry per command, each module exporting
// `main(args: string[]): Promise<number>` (the exit code). Modules load only when used.
export interface Subcommand {
  summary: string;
  load: () => Promise<{ main: (args: string[]) => Promise<number> }>;
}

export const subcommands: Record<string, Subcommand> = {
  controller: {
    summary: 'Run the controller: reconcile ClusterCatalogs into CatalogMetadata and serve content',
    load: () => import('./controller.js'),
  },
  render: {
    summary: 'print the CatalogMetadata objects an FBC directory produces (YAML or JSON)',
    load: () => import('./render.js'),
  },
  push: {
    summary: 'package an FBC directory as a catalog image and push it',
    load: () => import('./push.js'),
  },
};
