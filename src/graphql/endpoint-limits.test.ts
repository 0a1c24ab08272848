import { expect } from 'chai';
import { blobOf, catalogOf } from '../server/test-catalogs.test.js';
import { QueryGate } from './gate.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { LATE_CLOCK, servedForSuite, smallCatalog, withServed } from './test-fixtures.test.js';
import { ENDPOINT, call, postQuery, requestError } from './test-requests.test.js';

describe('graphql/endpoint: refusals (limits, bad requests)', function () {
  const s = servedForSuite();

  it('refuses a query over upstream’s limits with 400 and upstream’s error shape', async () => {
    let deep = '{ olmbundles { properties { type } } }';
    for (let i = 0; i < 10; i++) deep = `{ ... on Query ${deep} }`;
    const d = await postQuery(s().server, 'cat', deep);
    expect(d.status).to.equal(400);
    expect(d.text).to.equal(requestError('query exceeds maximum depth of 10'));
    const aliases = `{ ${Array.from({ length: 51 }, (_, i) => `a${i}: summary { totalSchemas }`).join(' ')} }`;
    const a = await postQuery(s().server, 'cat', aliases);
    expect([a.status, a.text]).to.deep.equal([
      400,
      requestError('query exceeds maximum alias count of 50'),
    ]);
    const fields = `{ olmbundles { ${Array.from({ length: 500 }, () => 'name').join(' ')} } }`;
    const f = await postQuery(s().server, 'cat', fields);
    expect([f.status, f.text]).to.deep.equal([
      400,
      requestError('query exceeds maximum field count of 500'),
    ]);
    const cost = `{ ${Array.from({ length: 11 }, (_, i) => `a${i}: olmbundles { name }`).join(' ')} }`;
    const c = await postQuery(s().server, 'cat', cost);
    expect(c.status).to.equal(400);
    expect((c.json as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(
      /^query exceeds maximum list cost of 1000 objects/,
    );
  });

  it('answers a malformed or invalid query 400, a bad body 400 with upstream’s messages', async () => {
    const p = await postQuery(s().server, 'cat', '{ olmbundles { name }');
    expect([p.status, p.text]).to.deep.equal([
      400,
      requestError('query parse error: Syntax Error: Expected Name, found <EOF>.'),
    ]);
    const v = await postQuery(s().server, 'cat', '{ olmbundles { nope } }');
    expect(v.status).to.equal(400);
    expect(v.json).to.deep.equal({
      data: null,
      errors: [
        {
          message: 'Cannot query field "nope" on type "OlmBundle". Did you mean "name"?',
          locations: [{ line: 1, column: 16 }],
        },
      ],
    });
    const body = (b: string) => call(s().server, ENDPOINT, { method: 'POST', body: b });
    for (const [b, message] of [
      ['not json', 'Invalid request body'],
      ['[1]', 'Invalid request body'],
      ['{"query": 3}', 'Invalid request body'],
      ['{}', 'Query cannot be empty'],
      ['{"query": ""}', 'Query cannot be empty'],
      [
        JSON.stringify({ query: `{ summary { totalSchemas } }${' '.repeat(100_000)}` }),
        'Query too large',
      ],
      [
        '{"query": "{ summary { totalSchemas } }", "variables": [1]}',
        'variables must be a JSON object',
      ],
    ] as const) {
      const r = await body(b);
      expect([r.status, r.text], b.slice(0, 40)).to.deep.equal([400, requestError(message)]);
    }
    const big = await call(s().server, ENDPOINT, {
      method: 'POST',
      body: Buffer.alloc((1 << 20) + 1, 32),
    });
    expect([big.status, big.text]).to.deep.equal([400, requestError('Invalid request body')]);
    const spreads = `{ olmbundles { ${'...F '.repeat(2500)}} } fragment F on OlmBundle { name }`;
    const t = await postQuery(s().server, 'cat', spreads);
    expect([t.status, t.text]).to.deep.equal([
      400,
      requestError(
        'query parse error: Syntax Error: Document contains more than 5000 tokens. Parsing aborted.',
      ),
    ]);
    const u = await postQuery(
      s().server,
      'cat',
      'query($n: Int) { olmbundles(limit: $n) { name } }',
      { variables: { n: 'x' } },
    );
    expect(u.status).to.equal(400);
  });
});

describe('graphql/endpoint: schema errors, budgets, turns and deadlines', function () {
  it('answers 500 with upstream’s collision message for a catalog upstream cannot build a schema of', async () => {
    const c = catalogOf([
      blobOf({ schema: 'olm.bundle', name: 'a' }),
      blobOf({ schema: 'olm_bundle', name: 'b' }),
    ]);
    await withServed({ cat: c }, createGraphqlEndpoint(), async (s) => {
      const r = await postQuery(s.server, 'cat', '{ summary { totalSchemas } }');
      expect(r.status).to.equal(500);
      expect(r.json).to.deep.equal({
        data: null,
        errors: [
          {
            message:
              'failed to get GraphQL schema: error building GraphQL schema: type name collision: schemas "olm.bundle" and "olm_bundle" both sanitize to GraphQL type "OlmBundle"',
            locations: [],
          },
        ],
      });
    });
  });

  it('refuses a query past its budgets with 400, a query with no turn with 503, one past its deadline with 503', async () => {
    const c = smallCatalog();
    const answerBudget = createGraphqlEndpoint({ budgets: { answerBytes: 100 } });
    await withServed({ cat: c }, answerBudget, async (budgeted) => {
      const small = await postQuery(budgeted.server, 'cat', '{ olmbundles { name } }');
      expect(small.status).to.equal(200);
      const big = await postQuery(
        budgeted.server,
        'cat',
        '{ olmbundles { name properties { value } } }',
      );
      expect([big.status, big.json]).to.deep.equal([
        400,
        {
          data: null,
          errors: [
            {
              message:
                'query answer exceeds 100 bytes: ask for fewer objects (limit) or fewer fields',
              locations: [],
            },
          ],
        },
      ]);
    });
    const readBudget = createGraphqlEndpoint({ budgets: { readBytes: 200 } });
    await withServed({ cat: c }, readBudget, async (s) => {
      const r = await postQuery(s.server, 'cat', '{ olmbundles { name } }');
      expect(r.status).to.equal(400);
      expect(r.text).to.contain('query reads more than 200 bytes of blobs');
    });
    for (const [graphql, query, message] of [
      [
        createGraphqlEndpoint({ running: 0, waiting: 0 }),
        '{ summary { totalSchemas } }',
        'too many GraphQL queries at once: retry',
      ],
      [
        createGraphqlEndpoint({ clock: LATE_CLOCK }),
        '{ olmbundles { name } }',
        'query exceeds its deadline of 5s',
      ],
    ] as const)
      await withServed({ cat: c }, graphql, async (s) => {
        const r = await postQuery(s.server, 'cat', query);
        expect([r.status, r.headers['retry-after'], r.text]).to.deep.equal([
          503,
          '1',
          requestError(message),
        ]);
      });
  });
  it('takes its turns from a gate it is given (the controller shares one with the endpoint across catalogs)', async () => {
    const gate = new QueryGate(1, 0);
    const held = await gate.enter(new AbortController().signal);
    if (!held) throw new Error('the gate has a turn');
    await withServed({ cat: smallCatalog() }, createGraphqlEndpoint({ gate }), async (s) => {
      const busy = await postQuery(s.server, 'cat', '{ summary { totalSchemas } }');
      expect([busy.status, busy.text]).to.deep.equal([
        503,
        requestError('too many GraphQL queries at once: retry'),
      ]);
      held();
      const r = await postQuery(s.server, 'cat', '{ summary { totalSchemas } }');
      expect(r.status, r.text).to.equal(200);
      // Its turn was given back once the answer was written.
      expect(gate.load).to.deep.equal({ running: 0, waiting: 0 });
    });
  });
});
