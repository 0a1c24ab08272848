// The table of `catalogd` subcommands: one entry per command, each module exporting
// `main(args: string[]): Promise<number>` (the exit code). Modules load only when used.
export interface Subcommand {
  summary: string;
  load: () => Promise<{ main: (args: string[]) => Promise<number> }>;
}

export const subcommands: Record<string, Subcommand> = {};
