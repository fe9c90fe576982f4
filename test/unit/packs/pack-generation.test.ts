/**
 * Pack generation over described tables (no warehouse): the schema facts it reads, the deterministic
 * proposal, the pack it renders (loaded by the same loader as the shipped packs), and the model path
 * with its one reformat retry, its fallback and its prompt budget on a 1,500-table warehouse.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LlmCallRecord, Row } from '../../../src/domain/index.js';
import type { LlmBinding } from '../../../src/llm/catalog.js';
import { generatePack, GENERAL_PACK_SLUG, choosePackForTables, packSlugFrom } from '../../../src/discovery/packs/generation/index.js';
import { readWarehouseFacts } from '../../../src/discovery/packs/generation/warehouse-facts.js';
import { ALLOWED_VARIABLES, loadPackFromFiles } from '../../../src/discovery/packs/pack-loader.js';
import { generalPack, loadPack, loadPacks } from '../../support/packs.js';
import { renderTemplate } from '../../../src/discovery/packs/template.js';
import { lookupModel } from '../../../src/llm/catalog.js';
import type { LlmRequest } from '../../../src/llm/port.js';
import { promptBudgetTokens } from '../../../src/llm/prompt-builder.js';
import { createOfflineProvider } from '../../../src/llm/providers/offline.js';
import { inferColumnCategory } from '../../../src/warehouse/column-category.js';
import type { TableSchema } from '../../../src/warehouse/port.js';
import { tempDir } from '../../support/temp-dir.js';

/** A described table as schema discovery returns it: column categories inferred the way the adapters infer them. */
function table(qualified: string, rowCount: number, columns: Array<[string, string]>, samples: Row[] = []): TableSchema {
  const [schema = 'main', name = qualified] = qualified.split('.');
  return {
    schema,
    name,
    qualified,
    rowCount,
    samples,
    columns: columns.map(([column, type]) => ({ name: column, type, nullable: true, category: inferColumnCategory(column, type) })),
  };
}

const INCIDENT_DESCRIPTION = 'User reports that the VPN client disconnects every few minutes since the last update on the laptop';

const incidents = table(
  'main.incidents',
  12_000,
  [
    ['incident_id', 'BIGINT'],
    ['category', 'VARCHAR'],
    ['state', 'VARCHAR'],
    ['opened_at', 'TIMESTAMP'],
    ['closed_at', 'TIMESTAMP'],
    ['priority', 'VARCHAR'],
    ['assignee', 'VARCHAR'],
    ['location', 'VARCHAR'],
    ['description', 'VARCHAR'],
  ],
  [
    {
      incident_id: 1,
      category: 'network',
      state: 'closed',
      priority: '2 - high',
      assignee: 'team_a',
      location: 'Berlin',
      description: INCIDENT_DESCRIPTION,
    },
  ],
);

const shop = [
  table('main.sessions', 36_000, [
    ['session_id', 'BIGINT'],
    ['customer_id', 'BIGINT'],
    ['started_at', 'TIMESTAMP'],
    ['device_type', 'VARCHAR'],
    ['added_to_cart', 'BOOLEAN'],
    ['reached_checkout', 'BOOLEAN'],
  ]),
  table('main.orders', 12_000, [
    ['order_id', 'BIGINT'],
    ['customer_id', 'BIGINT'],
    ['session_id', 'BIGINT'],
    ['ordered_at', 'TIMESTAMP'],
    ['order_status', 'VARCHAR'],
    ['total_amount', 'DECIMAL(12,2)'],
    ['discount_amount', 'DECIMAL(12,2)'],
    ['shipped_at', 'TIMESTAMP'],
    ['delivered_at', 'TIMESTAMP'],
  ]),
  table('main.customers', 5_000, [
    ['customer_id', 'BIGINT'],
    ['signup_at', 'TIMESTAMP'],
    ['region', 'VARCHAR'],
    ['loyalty_tier', 'VARCHAR'],
  ]),
  table('main.refunds', 1_200, [
    ['refund_id', 'BIGINT'],
    ['order_id', 'BIGINT'],
    ['refunded_at', 'TIMESTAMP'],
    ['refund_amount', 'DECIMAL(12,2)'],
    ['reason', 'VARCHAR'],
  ]),
];

/** Words of purchase funnels and shops: none belongs in a pack for an incident table. */
const SHOP_WORDS = /funnel|purchase|checkout|cart|\border|revenue|customer|basket|conversion/i;

function realNames(tables: readonly TableSchema[]): Set<string> {
  return new Set(tables.flatMap((entry) => [entry.name, ...entry.columns.map((column) => column.name)]).map((name) => name.toLowerCase()));
}

describe('reading a warehouse schema', () => {
  it("gives timestamps their place in a record's life: opened/created before resolved and closed, and a last update is no end", () => {
    const tickets = table('main.tickets', 900, [
      ['ticket_id', 'BIGINT'],
      ['updated_at', 'TIMESTAMP'],
      ['closed_at', 'TIMESTAMP'],
      ['created_at', 'TIMESTAMP'],
      ['resolved_at', 'TIMESTAMP'],
      ['queue', 'VARCHAR'],
    ]);
    const [pair] = readWarehouseFacts([tickets]).pairs;
    expect(pair).toMatchObject({ start: 'created_at', end: 'closed_at', alsoEnds: ['resolved_at'] });
  });

  it('pairs a parent start with a child timestamp (time to the first child row)', () => {
    const pairs = readWarehouseFacts(shop).pairs.map(
      (pair) => `${pair.table.name}.${pair.start}->${pair.endTable?.name ?? pair.table.name}.${pair.end}`,
    );
    expect(pairs[0]).toBe('orders.ordered_at->orders.delivered_at');
    expect(pairs).toContain('customers.signup_at->orders.ordered_at');
  });

  it('sets copies and empty tables aside, and treats keys, document numbers and free text as neither segments nor measures', () => {
    const facts = readWarehouseFacts([
      incidents,
      table('archive.incidents', 50_000, [['incident_id', 'BIGINT']]),
      table('main.incidents_2023', 40_000, [['incident_id', 'BIGINT']]),
      table('main.unused', 0, [['x', 'VARCHAR']]),
      table('main.invoices', 3_000, [
        ['invoice_no', 'VARCHAR'],
        ['amount', 'DOUBLE'],
      ]),
    ]);
    expect(facts.tables.map((entry) => entry.qualified)).toEqual(['main.incidents', 'main.invoices']);
    expect(facts.skipped).toEqual({ copies: 2, empty: 1, beyondLimit: 0 });
    const roles = Object.fromEntries(facts.tables.flatMap((entry) => entry.columns.map((column) => [column.name, column.role])));
    expect(roles).toMatchObject({ incident_id: 'key', invoice_no: 'key', description: 'text', category: 'segment', amount: 'measure' });
  });
});

describe('the deterministic proposal', () => {
  it('frames an incident table by durations and segments, with real column names and no purchase funnel', async () => {
    const generated = await generatePack({ basePack: generalPack(), tables: [incidents], slug: 'incidents' });
    expect(generated.generator).toBe('offline');
    const ids = generated.proposal.areas.map((area) => area.id);
    expect(ids).toEqual(expect.arrayContaining(['durations', 'segments']));
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const durations = generated.pack.areas.find((area) => area.id === 'durations');
    expect(durations?.keywords).toEqual(expect.arrayContaining(['opened_at', 'closed_at']));
    expect(generated.pack.areas.find((area) => area.id === 'segments')?.keywords).toEqual(
      expect.arrayContaining(['category', 'priority', 'assignee']),
    );
    const names = realNames([incidents]);
    for (const area of generated.pack.areas) {
      for (const keyword of area.keywords) expect(names, `${area.id}: ${keyword}`).toContain(keyword);
      expect(`${area.name} ${area.description} ${area.keywords.join(' ')}`).not.toMatch(SHOP_WORDS);
      expect(area.keywords, `${area.id} never uses the free-text column`).not.toContain('description');
    }
  });

  it('puts first the area the goal asks about', async () => {
    const plain = await generatePack({ basePack: generalPack(), tables: [incidents], slug: 'incidents' });
    expect(plain.proposal.areas[0]?.id).toBe('segments');
    const asked = await generatePack({
      basePack: generalPack(),
      tables: [incidents],
      slug: 'incidents',
      goal: 'How long do incidents take to close?',
    });
    expect(asked.proposal.areas[0]?.id).toBe('durations');
    expect(asked.pack.prompts.base_context).toContain('The team wants to learn: How long do incidents take to close?');
  });

  it('refuses a warehouse with too little structure for three areas, saying why', async () => {
    const bare = table('main.numbers', 500, [['id', 'BIGINT']]);
    await expect(generatePack({ basePack: generalPack(), tables: [bare], slug: 'bare' })).rejects.toThrow(
      /supports only 0 analysis area\(s\).*needs at least 3/,
    );
  });

  it('refuses a slug the pack loader would refuse, suggesting one', async () => {
    await expect(generatePack({ basePack: generalPack(), tables: [incidents], slug: 'My Pack' })).rejects.toThrow(
      /must be kebab-case.*"my-pack"/,
    );
    expect(packSlugFrom('2024 Incidents_Pack!')).toBe('incidents-pack');
  });
});

describe('a generated pack', () => {
  it('keeps the general pack contract: every prompt renders with the engine variables and shows the warehouse', async () => {
    const generated = await generatePack({ basePack: generalPack(), tables: shop, slug: 'shop', describe: 'A web shop' });
    const render = (text: string, kind: keyof typeof ALLOWED_VARIABLES) =>
      renderTemplate(text, Object.fromEntries(ALLOWED_VARIABLES[kind].map((name) => [name, `<${name}>`])), {
        file: kind,
        allowed: ALLOWED_VARIABLES[kind],
      });
    const exploration = render(generated.pack.prompts.exploration, 'exploration');
    expect(exploration).toContain('## What is known about this warehouse');
    expect(exploration).toContain('orders.ordered_at to orders.delivered_at (via shipped_at)');
    expect(render(generated.pack.prompts.base_context, 'base_context')).toContain('The team describes the data as: A web shop');
    const general = loadPack(GENERAL_PACK_SLUG);
    for (const area of generated.pack.areas) {
      const rendered = render(area.prompt, 'analysis');
      expect(rendered).toMatch(/^# Analysis: <AREA_NAME>\n\nArea: <AREA_DESCRIPTION>/);
      expect(rendered).toContain('## In this warehouse');
      // the archetype's contract (digest fields, severities, example) is the general pack's, unchanged
      const archetype = general.areas.find((candidate) => area.id.startsWith(candidate.id));
      expect(area.prompt.endsWith(archetype?.prompt.slice(archetype.prompt.indexOf('## How to read the evidence')) ?? '?')).toBe(true);
    }
    expect(generated.pack.profile_schema).toMatchObject({
      properties: { basic_info: { properties: { description: { default: 'A web shop' } } } },
    });
    // the row noun of each table, where it reads as one, for the team to correct in pack.json
    expect(generated.pack.mining.nouns).toEqual({
      'main.sessions': 'sessions',
      'main.orders': 'orders',
      'main.customers': 'customers',
      'main.refunds': 'refunds',
    });
  });

  it('takes a row noun from what the team says the data is when the table name is not one', async () => {
    const readings = table('main.ds1', 1_470, [
      ['id', 'BIGINT'],
      ['department', 'VARCHAR'],
      ['left_company', 'BOOLEAN'],
      ['salary', 'DOUBLE'],
      ['hired_at', 'DATE'],
    ]);
    const generated = await generatePack({
      basePack: generalPack(),
      tables: [readings],
      slug: 'people',
      describe: '1,470 employees with their pay and tenure',
    });
    expect(generated.pack.mining.nouns).toEqual({ 'main.ds1': 'employees' });
  });

  it('written to a directory, loads by path with its own slug, and equals the document it came from', async () => {
    const generated = await generatePack({ basePack: generalPack(), tables: shop, slug: 'shop-pack' });
    const directory = join(tempDir('assay-generated-'), 'any-name');
    for (const [path, text] of Object.entries(generated.files)) {
      mkdirSync(dirname(join(directory, path)), { recursive: true });
      writeFileSync(join(directory, path), text);
    }
    const loaded = loadPack(directory);
    expect(loaded.slug).toBe('shop-pack');
    expect(loaded.source_dir).toBe(directory);
    const { source_dir: _fromDisk, ...fromDisk } = loaded;
    const { source_dir: _fromDocument, ...fromDocument } = generated.pack;
    expect(fromDisk).toEqual(fromDocument);
  });
});

describe('loading a pack document', () => {
  it('refuses a path a pack directory cannot hold', async () => {
    const { files } = await generatePack({ basePack: generalPack(), tables: [incidents], slug: 'incidents' });
    expect(() => loadPackFromFiles({ ...files, '../secrets.md': 'x' }, 'bad')).toThrow(/file "\.\.\/secrets\.md" cannot be part of a pack/);
  });

  it('says which directory is missing when a pack path does not exist', () => {
    expect(() => loadPack('./no-such-pack-dir')).toThrow(/domain pack directory .*no-such-pack-dir does not exist/);
  });

  it('names the file when a referenced prompt is missing, as for a directory', async () => {
    const { files } = await generatePack({ basePack: generalPack(), tables: [incidents], slug: 'incidents' });
    const { 'prompts/analysis_trends.md': _dropped, ...rest } = files;
    expect(() => loadPackFromFiles(rest, 'incidents@2')).toThrow(
      'pack "incidents": area "trends" has no prompt file prompts/analysis_trends.md',
    );
  });
});

describe('with a model', () => {
  const validReply = JSON.stringify({
    name: 'Service desk incidents',
    description: 'Incidents from opening to closing.',
    areas: [
      {
        archetype: 'durations',
        name: 'Time to close',
        description: 'Hours from opened_at to closed_at by category and priority.',
        keywords: ['opened_at', 'closed_at', 'category', 'priority', 'sla_breached'],
        focus: ['Median hours from opened_at to closed_at per priority.'],
      },
      {
        archetype: 'segments',
        name: 'Slow groups',
        description: 'Assignees and locations that close more slowly.',
        keywords: ['assignee', 'location', 'state'],
      },
      {
        archetype: 'trends',
        name: 'Incident volume',
        description: 'Weekly incidents by opened_at.',
        keywords: ['opened_at', 'incidents', 'category'],
      },
    ],
    context: ['One row per incident.'],
  });

  /** A model that answers with `replies` in order; a text-only model unless `native` (structured output and tools). */
  function scripted(replies: string[], contextWindow = 200_000, native = false): { binding: LlmBinding; requests: LlmRequest[] } {
    const requests: LlmRequest[] = [];
    const provider = createOfflineProvider({
      brain: (request) => {
        requests.push(request);
        return replies[Math.min(requests.length - 1, replies.length - 1)] ?? '';
      },
    });
    const entry = { ...lookupModel('offline:analyst').entry, contextWindow, tools: native, structuredOutput: native };
    return { binding: { provider, entry }, requests };
  }

  it('asks through structured output when the model has it, and reads the proposal from the JSON it writes', async () => {
    const { binding, requests } = scripted([`Here it is: ${validReply}`], 200_000, true);
    const records: LlmCallRecord[] = [];
    const generated = await generatePack({
      basePack: generalPack(),
      tables: [incidents],
      slug: 'incidents',
      llm: binding,
      onLlmCall: (record) => records.push(record),
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.responseFormat?.name).toBe('propose_pack');
    expect(requests[0]?.responseFormat?.schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(records.map((record) => record.protocol)).toEqual(['structured']);
    expect(generated.generator).toBe('llm');
    expect(generated.proposal.areas.map((area) => area.id)).toEqual(['durations', 'segments', 'trends']);
  });

  it('gives an unusable structured answer one repair turn that quotes the validation error, then falls back', async () => {
    const { binding, requests } = scripted(['I would rather describe the warehouse in prose.'], 200_000, true);
    const generated = await generatePack({ basePack: generalPack(), tables: [incidents], slug: 'incidents', llm: binding });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.at(-1)?.content).toMatch(/could not be used: name: Invalid input: expected string/);
    expect(generated.generator).toBe('offline');
  });

  it('uses a valid proposal, dropping keywords that are not table or column names and saying so', async () => {
    const { binding, requests } = scripted([validReply]);
    const generated = await generatePack({
      basePack: generalPack(),
      tables: [incidents],
      slug: 'incidents',
      llm: binding,
      goal: 'resolution time',
    });
    expect(requests).toHaveLength(1);
    expect(generated.generator).toBe('llm');
    expect(generated.proposal.areas.map((area) => area.id)).toEqual(['durations', 'segments', 'trends']);
    expect(generated.pack.areas.find((area) => area.id === 'durations')?.keywords).toEqual([
      'opened_at',
      'closed_at',
      'category',
      'priority',
    ]);
    expect(generated.notes.join(' ')).toMatch(/dropped keywords that are not table or column names: sla_breached/);
    expect(requests[0]?.system).toContain('durations: Durations and Throughput');
    expect(requests[0]?.messages[0]?.content).toContain('What the team wants to learn: resolution time');
  });

  it('asks once more naming every problem, and uses the reformatted reply', async () => {
    const broken = JSON.stringify({
      name: 'x',
      description: 'y',
      areas: [{ archetype: 'churn', name: 'a', description: 'b', keywords: ['opened_at'] }],
    });
    const { binding, requests } = scripted([broken, validReply]);
    const generated = await generatePack({ basePack: generalPack(), tables: [incidents], slug: 'incidents', llm: binding });
    expect(requests).toHaveLength(2);
    const nudge = requests[1]?.messages.at(-1)?.content ?? '';
    expect(nudge).toMatch(/expected 3 to 6 areas, got 1/);
    expect(nudge).toMatch(/areas\[0\]\.archetype: "churn" is not one of segments, durations, trends, concentration, anomalies/);
    expect(nudge).toMatch(/areas\[0\]\.keywords: expected at least 3/);
    expect(requests[1]?.messages.at(-2)).toMatchObject({ role: 'assistant', content: broken });
    expect(generated.generator).toBe('llm');
    expect(generated.notes[0]).toMatch(/first reply was unusable/);
  });

  it('falls back to the deterministic proposal after a second unusable reply, with a note', async () => {
    const { binding, requests } = scripted(['I would rather describe the warehouse in prose.']);
    const generated = await generatePack({ basePack: generalPack(), tables: [incidents], slug: 'incidents', llm: binding });
    expect(requests).toHaveLength(2);
    expect(generated.generator).toBe('offline');
    expect(generated.notes).toEqual([
      expect.stringMatching(/unusable after one reformat retry \(the reply holds no JSON object\).*without a model/),
    ]);
    expect(generated.proposal.areas.map((area) => area.id)).toEqual(expect.arrayContaining(['durations', 'segments']));
  });

  it.each([
    [32_000, 'the Level-0 catalog is cut to its budget'],
    [8_000, 'the prompt builder shrinks the catalog and column sections further'],
  ])('keeps a 1,500-table warehouse inside a %i-token window: %s', async (contextWindow) => {
    const wide = Array.from({ length: 1_500 }, (_, index) =>
      table(`dept_${index % 12}.table_${String(index).padStart(4, '0')}_${['ledger', 'movement', 'request'][index % 3]}`, 1_000 + index, [
        ['row_id', 'BIGINT'],
        ['created_at', 'TIMESTAMP'],
        ['closed_at', 'TIMESTAMP'],
        ['status', 'VARCHAR'],
        ['amount', 'DOUBLE'],
      ]),
    );
    const { binding, requests } = scripted([validReply], contextWindow);
    const records: LlmCallRecord[] = [];
    await generatePack({ basePack: generalPack(), tables: wide, slug: 'wide', llm: binding, onLlmCall: (record) => records.push(record) });
    const budget = promptBudgetTokens({ contextWindow, maxOutputTokens: 4_096, maxInputTokens: undefined });
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(record.prompt_tokens_estimated).toBeLessThanOrEqual(budget);
    if (contextWindow < 10_000) expect(records.every((record) => record.shrunk)).toBe(true);
    const prompt = requests[0]?.messages.map((message) => message.content).join('\n') ?? '';
    // the catalog survives, cut to what fits by the catalog itself: its data section is closed and its
    // "N more tables not listed" note kept, at both windows
    expect(prompt).toMatch(
      /The table catalog[^\n]*\n# table \|[^\n]*\n<<<WAREHOUSE_DATA\n(?:dept_\d+\.table_\d+_\w+ \| 5c[^\n]*\n)+WAREHOUSE_DATA>>>\n# \d+ more tables not listed \(catalog budget\)/,
    );
  });
});

describe('choosing a pack for a run without --pack', () => {
  const packs = loadPacks();

  it('uses the general pack when no domain pack matches, and a domain pack when its areas do', () => {
    const forIncidents = choosePackForTables([incidents], packs, GENERAL_PACK_SLUG);
    expect(forIncidents).toMatchObject({ slug: 'general', fallback: true });
    expect(forIncidents.scores.map((score) => score.slug)).not.toContain('general');
    expect(choosePackForTables(shop, packs, GENERAL_PACK_SLUG)).toMatchObject({ slug: 'ecommerce', fallback: false });
  });
});
