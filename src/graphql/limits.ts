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
}

/** Upstream's limits (maxQueryDepth, maxQueryAliases, maxQueryFields), and our list cost. */
export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  depth: 10,
  aliases: 50,
  fields: 500,
  listCost: 1000,
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
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
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

export function checkListCost(cost: number, limits: QueryLimits = DEFAULT_QUERY_LIMITS): void {
  if (cost > limits.listCost)
    throw new QueryLimitError(
      `query exceeds maximum list cost of ${limits.listCost} objects (each list field counts its limit, 100 when none is given)`,
    );
}
