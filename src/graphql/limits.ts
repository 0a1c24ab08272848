// What a query may ask for. Depth, aliases and fields are counted as upstream catalogd counts
// them (operator-controller internal/catalogd/graphql/validation.go: ValidateQueryComplexity),
// with its limits and messages; the list cost is ours (upstream has none): each list field of
// the query root counts the objects it may return, so that 50 aliases of a 100-object page
// cannot make one query read 5,000 blobs.
import { Kind } from 'graphql';
import type {
  DocumentNode,
  FragmentDefinitionNode,
  OperationDefinitionNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';

export interface QueryLimits {
  /** Nesting of selection sets (fragments count as a level, as upstream counts them). */
  depth: number;
  aliases: number;
  fields: number;
  /** Objects the query root's list fields may return, all together (their limits summed). */
  listCost: number;
  /**
   * Objects the additions' fields may return, all together: each field with a selection counts
   * its size (a list's limit, or its nominal size), times the sizes of the lists it is in.
   */
  joinCost: number;
}

/** Upstream's limits (maxQueryDepth, maxQueryAliases, maxQueryFields), and our list cost. */
export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  depth: 10,
  aliases: 50,
  fields: 500,
  listCost: 1000,
  joinCost: 10_000,
};

/** A list field returns at most this many objects, and this many when no limit is given. */
export const MAX_PAGE = 100;

/** A query over a limit: answered 400, with upstream's error shape and message. */
export class QueryLimitError extends Error {
  override name = 'QueryLimitError';
}

/**
 * Upstream's walk: fields and aliases are counted over the whole document, fragments once per
 * operation (a fragment spread again is not walked again), inline fragments and fragment
 * spreads one level deeper.
 */
export function checkComplexity(
  doc: DocumentNode,
  limits: QueryLimits = DEFAULT_QUERY_LIMITS,
): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  let fields = 0;
  let aliases = 0;
  let visited = new Set<string>();
  const walk = (ss: SelectionSetNode | undefined, depth: number): void => {
    if (!ss) return;
    if (depth > limits.depth)
      throw new QueryLimitError(`query exceeds maximum depth of ${limits.depth}`);
    for (const sel of ss.selections) {
      if (sel.kind === Kind.FIELD) {
        if (++fields > limits.fields)
          throw new QueryLimitError(`query exceeds maximum field count of ${limits.fields}`);
        if (sel.alias && sel.alias.value !== '' && ++aliases > limits.aliases)
          throw new QueryLimitError(`query exceeds maximum alias count of ${limits.aliases}`);
        walk(sel.selectionSet, depth + 1);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet, depth + 1);
      else {
        const name = sel.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        walk(fragments.get(name)?.selectionSet, depth + 1);
      }
    }
  };
  for (const def of doc.definitions)
    if (def.kind === Kind.OPERATION_DEFINITION) {
      visited = new Set();
      walk(def.selectionSet, 1);
    }
}

/**
 * The page size a list field returns, as upstream's resolver clamps it: no limit, a limit of
 * 0 or less, or over 100, is 100.
 */
export function pageSize(limit: unknown): number {
  return typeof limit === 'number' && Number.isInteger(limit) && limit > 0 && limit <= MAX_PAGE
    ? limit
    : MAX_PAGE;
}

/** A list field's offset, as upstream's resolver clamps it: none or negative is 0. */
export function pageOffset(offset: unknown): number {
  return typeof offset === 'number' && Number.isInteger(offset) && offset > 0 ? offset : 0;
}

/**
 * The objects the operation's root list fields (`isListField`) may return: each distinct
 * response key counts its page size. Fragments on the root are followed; `@skip` and
 * `@include` are not read (a field counts as if it ran).
 */
export function listCost(
  doc: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  isListField: (name: string) => boolean,
): number {
  const fragments = fragmentsOf(doc);
  const valueOf = intArgument(operation, variables);
  const counted = new Map<string, number>();
  const seen = new Set<string>();
  const walk = (ss: SelectionSetNode): void => {
    for (const sel of ss.selections) {
      if (sel.kind === Kind.FIELD) {
        if (!isListField(sel.name.value)) continue;
        const key = sel.alias?.value ?? sel.name.value;
        const limit = valueOf(sel.arguments?.find((a) => a.name.value === 'limit')?.value);
        counted.set(key, Math.max(counted.get(key) ?? 0, pageSize(limit)));
      } else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const frag = fragments.get(sel.name.value);
        if (frag) walk(frag.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  let total = 0;
  for (const n of counted.values()) total += n;
  return total;
}

function fragmentsOf(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  return fragments;
}

/** An argument's value when it is an integer literal or a variable (its value or default). */
function intArgument(
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
): (node: ValueNode | undefined) => unknown {
  const defaults = new Map<string, ValueNode>();
  for (const v of operation.variableDefinitions ?? [])
    if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
  const valueOf = (node: ValueNode | undefined): unknown => {
    if (!node) return undefined;
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.VARIABLE) {
      const name = node.name.value;
      return Object.hasOwn(variables, name) ? variables[name] : valueOf(defaults.get(name));
    }
    return undefined;
  };
  return valueOf;
}

/**
 * The objects the additions may return (`isAdditionRoot` says which root fields are theirs):
 * every field with a selection set counts its size times the sizes of the lists it is in; a
 * list's size is `listSize(name, limit)` (its page size, or a nominal size for a list without
 * a limit), any other field's 1. Fragments are followed each time they are spread (validation
 * has refused cycles); `@skip` and `@include` are not read.
 */
export function joinCost(
  doc: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  isAdditionRoot: (name: string) => boolean,
  listSize: (name: string, limit: unknown) => number | undefined,
): number {
  const fragments = fragmentsOf(doc);
  const valueOf = intArgument(operation, variables);
  // The cost of a selection set once; a fragment's is computed once (by where it is spread:
  // on the root or below), so that fragments spread many times cost no more time to count.
  const perFragment = new Map<string, number>();
  const once = (ss: SelectionSetNode, root: boolean): number => {
    let cost = 0;
    for (const sel of ss.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) cost += once(sel.selectionSet, root);
      else if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const key = `${root}\0${sel.name.value}`;
        let c = perFragment.get(key);
        if (c === undefined) {
          const frag = fragments.get(sel.name.value);
          c = frag ? once(frag.selectionSet, root) : 0;
          perFragment.set(key, c);
        }
        cost += c;
      } else if (sel.selectionSet && (!root || isAdditionRoot(sel.name.value))) {
        const limit = valueOf(sel.arguments?.find((a) => a.name.value === 'limit')?.value);
        cost += (listSize(sel.name.value, limit) ?? 1) * (1 + once(sel.selectionSet, false));
      }
    }
    return cost;
  };
  return once(operation.selectionSet, true);
}

export function checkJoinCost(cost: number, limits: QueryLimits = DEFAULT_QUERY_LIMITS): void {
  if (cost > limits.joinCost)
    throw new QueryLimitError(
      `query exceeds maximum join cost of ${limits.joinCost} objects (each field with a selection counts its limit, or 10 for a list without one, times the lists it is in)`,
    );
}

export function checkListCost(cost: number, limits: QueryLimits = DEFAULT_QUERY_LIMITS): void {
  if (cost > limits.listCost)
    throw new QueryLimitError(
      `query exceeds maximum list cost of ${limits.listCost} objects (each list field counts its limit, 100 when none is given)`,
    );
}
