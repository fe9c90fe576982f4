import { describe, expect, it } from 'vitest';
import { EXPLORER_ACTIONS, parseAction, reformatNudge, type ExplorationAction } from '../../../src/discovery/parsing/action-parser.js';

type Expectation = Partial<ExplorationAction> & { type: ExplorationAction['type'] };

const accepted: Array<[string, string, Expectation]> = [
  ['bare JSON query', '{"thinking":"t","query":"SELECT 1"}', { type: 'query', query: 'SELECT 1' }],
  [
    'fenced json block',
    'Here you go:\n```json\n{"thinking":"look","query":"SELECT count(*) FROM main.orders"}\n```',
    { type: 'query', query: 'SELECT count(*) FROM main.orders' },
  ],
  ['upper-case JSON fence', '```JSON\n{"query": "SELECT 2"}\n```', { type: 'query', query: 'SELECT 2' }],
  ['plain fence', '```\n{"done": true, "summary": "enough"}\n```', { type: 'done', summary: 'enough' }],
  [
    'prose before and after',
    'I will check orders.\n{"query":"SELECT 3","query_purpose":"orders"}\nThat should help.',
    { type: 'query', purpose: 'orders' },
  ],
  [
    'braces inside SQL string',
    '{"query":"SELECT \'{not json}\' AS x, \'}\' AS y FROM t"}',
    { type: 'query', query: "SELECT '{not json}' AS x, '}' AS y FROM t" },
  ],
  ['escaped quotes in SQL', '{"query":"SELECT \\"weird col\\" FROM t"}', { type: 'query', query: 'SELECT "weird col" FROM t' }],
  [
    'raw newlines in the SQL string',
    '{"thinking":"multi","query":"SELECT device,\n  count(*)\nFROM main.sessions\nGROUP BY 1"}',
    { type: 'query', query: 'SELECT device,\n  count(*)\nFROM main.sessions\nGROUP BY 1' },
  ],
  ['trailing comma', '{"query":"SELECT 4",}', { type: 'query', query: 'SELECT 4' }],
  ['typographic quotes', '{\u201Cquery\u201D: \u201CSELECT 5\u201D}', { type: 'query', query: 'SELECT 5' }],
  ['done as string', '{"done":"true","summary":"s"}', { type: 'done' }],
  ['done wins over query', '{"done":true,"query":"SELECT 1","summary":"x"}', { type: 'done' }],
  ['done false with a query', '{"done":false,"query":"SELECT 6"}', { type: 'query', query: 'SELECT 6' }],
  [
    'lookup list',
    '{"thinking":"need cols","lookup_schema":["main.orders","main.customers"]}',
    { type: 'lookup_schema', tables: ['main.orders', 'main.customers'] },
  ],
  [
    'lookup single string',
    '{"lookup_schema":"main.orders, main.sessions"}',
    { type: 'lookup_schema', tables: ['main.orders', 'main.sessions'] },
  ],
  [
    'search with top k',
    '{"search_tables":"cart abandonment events","search_top_k":5}',
    { type: 'search_tables', query: 'cart abandonment events', topK: 5 },
  ],
  ['search top k as string', '{"search_tables":"refunds","search_top_k":"7"}', { type: 'search_tables', topK: 7 }],
  ['query outranks lookup', '{"lookup_schema":["a.b"],"query":"SELECT 7"}', { type: 'query' }],
  ['legacy query_data', '{"action":"query_data","query":"SELECT 8","reason":"r"}', { type: 'query', query: 'SELECT 8' }],
  ['legacy complete', '{"action":"complete","reason":"all areas covered"}', { type: 'done', summary: 'all areas covered' }],
  ['legacy lookup', '{"action":"lookup_schema","tables":["main.orders"]}', { type: 'lookup_schema', tables: ['main.orders'] }],
  ['legacy search', '{"action":"search_tables","query":"loyalty"}', { type: 'search_tables', query: 'loyalty' }],
  [
    'anthropic-style tool envelope',
    '{"name":"query_data","input":{"query":"SELECT 9","purpose":"p"}}',
    { type: 'query', query: 'SELECT 9', purpose: 'p' },
  ],
  [
    'envelope lookup',
    '{"name":"lookup_schema","input":{"tables":["main.products"]}}',
    { type: 'lookup_schema', tables: ['main.products'] },
  ],
  ['envelope search', '{"name":"search_tables","input":{"query":"payments","top_k":3}}', { type: 'search_tables', topK: 3 }],
  ['envelope complete', '{"name":"complete","input":{"summary":"done now"}}', { type: 'done', summary: 'done now' }],
  [
    'openai function call with string arguments',
    '{"function":{"name":"run_query","arguments":"{\\"sql\\":\\"SELECT 10\\"}"}}',
    { type: 'query', query: 'SELECT 10' },
  ],
  ['tool/args envelope', '{"tool":"execute_sql","args":{"sql":"SELECT 11"}}', { type: 'query', query: 'SELECT 11' }],
  [
    'key-driven field wins over envelope',
    '{"name":"query_data","input":{"query":"SELECT 1"},"query":"SELECT 12"}',
    { type: 'query', query: 'SELECT 12' },
  ],
  ['sql alias', '{"thinking":"t","sql":"SELECT 13"}', { type: 'query', query: 'SELECT 13' }],
  [
    'plan object then action object',
    '{"plan":"first look at orders","thinking":"ok"}\n{"query":"SELECT 14"}',
    { type: 'query', query: 'SELECT 14' },
  ],
  [
    'draft then final answer picks the last action',
    '{"query":"SELECT draft"}\nActually better:\n{"query":"SELECT final"}',
    { type: 'query', query: 'SELECT final' },
  ],
  ['nested objects inside the action', '{"thinking":"x","query":"SELECT 15","meta":{"a":{"b":1}}}', { type: 'query', query: 'SELECT 15' }],
  [
    'reasoning-model preamble with think tags',
    '<think>I should {maybe} query</think>\n{"query":"SELECT 16"}',
    { type: 'query', query: 'SELECT 16' },
  ],
  ['windows line endings in fence', '```json\r\n{"query":"SELECT 17"}\r\n```', { type: 'query', query: 'SELECT 17' }],
  ['an action wrapped in an array', '[{"query":"SELECT 19"}]', { type: 'query', query: 'SELECT 19' }],
  ['whitespace-padded SQL is trimmed', '{"query":"   SELECT 18   "}', { type: 'query', query: 'SELECT 18' }],
];

const rejected: Array<[string, string, RegExp]> = [
  ['empty reply', '', /empty/],
  ['pure prose mentioning done', 'I am done with the exploration, everything is complete.', /no parseable JSON/],
  ['truncated JSON', '{"query":"SELECT * FROM main.orders WHERE', /no parseable JSON/],
  ['unrelated keys', '{"plan":"look at churn","thinking":"..."}', /no action key/],
  ['empty query string', '{"query":"   "}', /no action key/],
  ['empty lookup list', '{"lookup_schema":[]}', /non-empty list/],
  ['single-quoted pseudo JSON', "{'query': 'SELECT 1'}", /no parseable JSON/],
  ['unknown tool name', '{"name":"drop_table","input":{"table":"x"}}', /no action key/],
];

describe('parseAction', () => {
  describe.each(accepted)('when the reply is %s', (_label, reply, expected) => {
    it('yields the action', () => {
      const result = parseAction(reply);
      if (!result.ok) throw new Error(`expected an action, got: ${result.reason}`);
      expect(result.action).toMatchObject(expected);
    });
  });

  describe.each(rejected)('when the reply is %s', (_label, reply, reason) => {
    it('rejects it with a reason', () => {
      const result = parseAction(reply);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    });
  });

  it('covers dozens of real-world shapes', () => {
    expect(accepted.length + rejected.length).toBeGreaterThanOrEqual(40);
  });
});

describe('reformatNudge', () => {
  it('shows every allowed shape, including lookup and search', () => {
    const nudge = reformatNudge('no JSON', EXPLORER_ACTIONS);
    for (const key of ['"query"', '"lookup_schema"', '"search_tables"', '"done"']) expect(nudge).toContain(key);
  });
});
