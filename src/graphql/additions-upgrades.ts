// The types of the additions' upgrades answer (fbcUpgrades): what `kubectl catalog upgrades`
// prints, from the client library's upgradesFrom (src/answers/upgrades.ts).
import { GraphQLBoolean, GraphQLList, GraphQLObjectType, GraphQLString } from 'graphql';
import type { PathStep, UpgradeCandidate, Upgrades } from '../answers/upgrades.js';
import { BundleType, readerOf } from './additions-types.js';
import type { QueryReads } from './fbc-reader.js';

const StepType = new GraphQLObjectType<PathStep>({
  name: 'Fbc_UpgradeStep',
  fields: {
    name: { type: GraphQLString },
    version: { type: GraphQLString },
    deprecation: { type: GraphQLString, resolve: (s) => s.deprecated ?? null },
  },
});

interface CandidateSource {
  candidate: UpgradeCandidate;
  pkg: string;
}

const UpgradeType = new GraphQLObjectType<CandidateSource, QueryReads>({
  name: 'Fbc_Upgrade',
  fields: {
    name: { type: GraphQLString, resolve: (s) => s.candidate.name },
    version: { type: GraphQLString, resolve: (s) => s.candidate.version ?? null },
    via: {
      type: new GraphQLList(GraphQLString),
      description: 'Every rule that makes it an upgrade: replaces, skips, skipRange',
      resolve: (s) => s.candidate.via,
    },
    skipRange: { type: GraphQLString, resolve: (s) => s.candidate.skipRange ?? null },
    head: { type: GraphQLBoolean, resolve: (s) => s.candidate.head },
    deprecation: { type: GraphQLString, resolve: (s) => s.candidate.deprecated ?? null },
    bundle: {
      type: BundleType,
      resolve: async (s, _args, run) =>
        (await readerOf(run).bundle(s.pkg, s.candidate.name)) ?? null,
    },
  },
});

/** Upgrades with the package they are of. */
export interface UpgradesSource {
  upgrades: Upgrades;
  pkg: string;
  channel: string;
}

export const UpgradesType = new GraphQLObjectType<UpgradesSource, QueryReads>({
  name: 'Fbc_Upgrades',
  description:
    'One-step upgrades from an installed bundle within a channel (kubectl catalog upgrades)',
  fields: {
    package: { type: GraphQLString, resolve: (s) => s.pkg },
    channel: { type: GraphQLString, resolve: (s) => s.channel },
    from: { type: StepType, resolve: (s) => s.upgrades.from },
    items: {
      type: new GraphQLList(UpgradeType),
      description: 'Newest version first',
      resolve: (s) => s.upgrades.items.map((candidate) => ({ candidate, pkg: s.pkg })),
    },
    head: { type: GraphQLString, resolve: (s) => s.upgrades.head ?? null },
    path: {
      type: new GraphQLList(StepType),
      description: 'The installed bundle, then each step to the head (fewest steps)',
      resolve: (s) => s.upgrades.path,
    },
    warnings: { type: new GraphQLList(GraphQLString), resolve: (s) => s.upgrades.warnings },
  },
});
