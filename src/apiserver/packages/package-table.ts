// The Table of CatalogPackages (what `kubectl get catalogpackages` shows): Name, Catalog,
// Package, Display Name, Default Channel, Head Version (of the default channel), Provider, Age;
// `-o wide` (priority 1) adds Priority, Deprecated and Channels.
import type { TableColumnDefinition } from '../table.js';
import { humanDuration } from '../../util/human-duration.js';
import { TABLE_COLUMNS } from '../table.js';
import type { CatalogPackage } from './package-object.js';

const column = (
  name: string,
  type: string,
  description: string,
  priority = 0,
): TableColumnDefinition => ({ name, type, format: '', description, priority });

export const PACKAGE_TABLE_COLUMNS: readonly TableColumnDefinition[] = [
  TABLE_COLUMNS[0]!,
  column('Catalog', 'string', 'The ClusterCatalog the package is in.'),
  column('Package', 'string', 'The package name.'),
  column('Display Name', 'string', "The default channel head's display name."),
  column('Default Channel', 'string', "The package's default channel."),
  column('Head Version', 'string', "The version of the default channel's head bundle."),
  column('Provider', 'string', "The default channel head's provider."),
  column('Age', 'date', 'The ClusterCatalog creation time.'),
  column('Priority', 'integer', "The ClusterCatalog's priority.", 1),
  column('Deprecated', 'boolean', 'Whether the package is deprecated.', 1),
  column('Channels', 'string', "The package's channels.", 1),
];

export function packageCells(p: CatalogPackage, now: number): unknown[] {
  const s = p.status;
  const defaultChannel = s.channels.find((c) => c.name === s.defaultChannel);
  return [
    p.metadata.name,
    s.catalog.name,
    s.packageName,
    s.displayName ?? null,
    s.defaultChannel ?? null,
    defaultChannel?.currentCSVDesc?.version ?? null,
    s.provider?.name ?? null,
    humanDuration(now - Date.parse(p.metadata.creationTimestamp)),
    s.catalog.priority,
    s.deprecation !== undefined,
    s.channels.map((c) => c.name).join(','),
  ];
}
