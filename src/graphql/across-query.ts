// The query one catalog answers for one root field of a query across catalogs
// (docs/graphql.md, "Across catalogs"): the field as the catalog's own schema can answer it
// (fragments inlined, the added `catalog` fields and the fields it lacks or types otherwise left
// out, the variables it uses), and its answer marked with the catalog's name.
import { getNamedType, isObjectType, Kind, OperationTypeNode, visit } from 'graphql';
import type {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLResolveInfo,
  GraphQLSchema,
  SelectionNode,
  SelectionSetNode,
} from 'graphql';
import { CATALOG_FIELD, CATALOG_OF } from './across-schema.js';
import type { AcrossSchema } from './across-schema.js';

/**
 * The selection set as catalog `catalog` can answer it, against its own schema: fragments
 * inlined, the added `catalog` fields and the fields it lacks or types otherwise left out;
 * undefined when nothing is left.
 */
function selectionFor(
  ss: SelectionSetNode,
  typeName: string,
  catalog: { name: string; schema: GraphQLSchema },
  across: Pick<AcrossSchema, 'leftOut' | 'tagged'>,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): SelectionSetNode | undefined {
  const own = catalog.schema.getType(typeName);
  if (!isObjectType(own)) return undefined;
  const fields = own.getFields();
  const selections: SelectionNode[] = [];
  for (const sel of ss.selections) {
    if (sel.kind === Kind.FIELD) {
      const name = sel.name.value;
      if (name === '__typename') {
        selections.push(sel);
        continue;
      }
      if (name === CATALOG_FIELD && across.tagged.has(typeName)) continue;
      const f = fields[name];
      if (!f || across.leftOut.get(typeName)?.get(name)?.has(catalog.name)) continue;
      if (!sel.selectionSet) {
        selections.push(sel);
        continue;
      }
      const inner = selectionFor(
        sel.selectionSet,
        getNamedType(f.type).name,
        catalog,
        across,
        fragments,
      );
      if (inner) selections.push({ ...sel, selectionSet: inner });
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const inner = selectionFor(
        sel.selectionSet,
        sel.typeCondition?.name.value ?? typeName,
        catalog,
        across,
        fragments,
      );
      if (inner) selections.push({ ...sel, selectionSet: inner });
    } else {
      const frag = fragments.get(sel.name.value);
      if (!frag) continue;
      const inner = selectionFor(
        frag.selectionSet,
        frag.typeCondition.name.value,
        catalog,
        across,
        fragments,
      );
      if (inner)
        selections.push({
          kind: Kind.INLINE_FRAGMENT,
          typeCondition: frag.typeCondition,
          ...(sel.directives && { directives: sel.directives }),
          selectionSet: inner,
        });
    }
  }
  return selections.length > 0 ? { kind: Kind.SELECTION_SET, selections } : undefined;
}

/**
 * The query of one root field for one catalog: the field (its nodes merged, as the response
 * key merges them), its selection as the catalog answers it, and the variables it uses.
 */
export function rootFieldQuery(
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'operation'>,
  catalog: { name: string; schema: GraphQLSchema },
  across: Pick<AcrossSchema, 'leftOut' | 'tagged'>,
): DocumentNode | undefined {
  const first = info.fieldNodes[0]!;
  const own = catalog.schema.getQueryType()?.getFields()[first.name.value];
  if (!own) return undefined;
  const fragments = new Map(Object.entries(info.fragments));
  const merged: SelectionSetNode = {
    kind: Kind.SELECTION_SET,
    selections: info.fieldNodes.flatMap((n) => n.selectionSet?.selections ?? []),
  };
  const inner = selectionFor(merged, getNamedType(own.type).name, catalog, across, fragments) ?? {
    kind: Kind.SELECTION_SET,
    selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } }],
  };
  const field: FieldNode = { ...first, directives: [], selectionSet: inner };
  const used = new Set<string>();
  visit(field, {
    Variable(node) {
      used.add(node.name.value);
    },
  });
  return {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: OperationTypeNode.QUERY,
        variableDefinitions: (info.operation.variableDefinitions ?? []).filter((v) =>
          used.has(v.variable.name.value),
        ),
        directives: [],
        selectionSet: { kind: Kind.SELECTION_SET, selections: [field] },
      },
    ],
  };
}

/** Marks every object of a catalog's answer with the catalog's name (the `catalog` field). */
export function tagWith(value: unknown, catalog: string): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...(v as unknown[]));
    else if (v !== null && typeof v === 'object') {
      (v as { [CATALOG_OF]?: string })[CATALOG_OF] = catalog;
      stack.push(...Object.values(v as Record<string, unknown>));
    }
  }
}
