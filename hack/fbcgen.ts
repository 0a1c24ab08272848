// Writes a synthetic, realistic FBC catalog: npx tsx hack/fbcgen.ts --size-mb 50 --out DIR [--seed N]
import { argv, exit, stderr, stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { generateCatalog } from '../test/support/fbcgen.js';

const { values } = parseArgs({
  args: argv.slice(2),
  options: {
    'size-mb': { type: 'string', default: '10' },
    out: { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});
if (!values.out) {
  stderr.write('usage: npx tsx hack/fbcgen.ts --size-mb N --out DIR [--seed N]\n');
  exit(2);
}
const r = await generateCatalog(values.out, {
  seed: Number(values.seed),
  sizeMB: Number(values['size-mb']),
});
stdout.write(
  `wrote ${r.files} files, ${(r.bytes / 1048576).toFixed(1)} MB of FBC to ${values.out}\n`,
);
