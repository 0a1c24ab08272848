import { expect } from 'chai';
import { importGraph } from '../../test/support/import-graph.js';

// Every `kubectl catalog` command but `ui` starts without the console: its modules and
// markdown-it load only when `ui` runs (commands/ui.ts imports it dynamically).
describe('kubectl catalog: what a command loads', () => {
  const graph = importGraph('src/plugin/kubectl-catalog.ts');

  it('loads no console module and not markdown-it', () => {
    expect(graph.files.filter((f) => f.includes('/plugin/ui/'))).to.deep.equal([]);
    expect(graph.packages).not.to.include('markdown-it');
  });

  it('loads one file per command', () => {
    const commands = graph.files.filter((f) => f.includes('/plugin/commands/'));
    expect(commands.map((f) => f.replace(/^.*\/commands\//, ''))).to.deep.equal([
      'bundles.ts',
      'channels.ts',
      'graph.ts',
      'list.ts',
      'packages.ts',
      'provides.ts',
      'query.ts',
      'show.ts',
      'ui.ts',
      'upgrades.ts',
    ]);
  });
});
