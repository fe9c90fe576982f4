/**
 * The packs we ship: they load, every prompt renders with the variables the engine fills, and the
 * examples inside the prompts obey the contracts the engine enforces (action shapes, insight and
 * recommendation fields, read-only portable SQL that both DuckDB and PostgreSQL parse).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { loadModule, parseSync } from 'libpg-query';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recommendationSchema } from '../../../src/domain/index.js';
import { rawInsightSchema } from '../../../src/discovery/parsing/output-parser.js';
import { ALLOWED_VARIABLES, REQUIRED_VARIABLES, resolveAreas, type PromptKind } from '../../../src/discovery/packs/pack-loader.js';
import { loadPacks } from '../../support/packs.js';
import type { DomainPack } from '../../../src/discovery/packs/pack-schema.js';
import { renderTemplate } from '../../../src/discovery/packs/template.js';

const packs = loadPacks({ includeHidden: true });

/** A distinct, recognisable value per variable so the test can see where each one landed. */
function valuesFor(kind: PromptKind): Record<string, string> {
  return Object.fromEntries(ALLOWED_VARIABLES[kind].map((name) => [name, `<<value of ${name}>>`]));
}

interface PromptUnderTest {
  pack: string;
  file: string;
  kind: PromptKind;
  text: string;
}

function promptsOf(pack: DomainPack): PromptUnderTest[] {
  const categoryAreas = pack.categories.flatMap((category) => category.areas);
  return [
    { pack: pack.slug, file: 'base_context.md', kind: 'base_context', text: pack.prompts.base_context },
    { pack: pack.slug, file: 'exploration.md', kind: 'exploration', text: pack.prompts.exploration },
    { pack: pack.slug, file: 'recommendations.md', kind: 'recommendations', text: pack.prompts.recommendations },
    ...[...pack.areas, ...categoryAreas].map(
      (area): PromptUnderTest => ({ pack: pack.slug, file: area.prompt_file, kind: 'analysis', text: area.prompt }),
    ),
    ...pack.categories.map(
      (category): PromptUnderTest => ({
        pack: pack.slug,
        file: category.prompt_file ?? '(none)',
        kind: 'exploration_context',
        text: category.exploration_context,
      }),
    ),
  ];
}

const allPrompts = packs.flatMap(promptsOf);
const byKind = (kind: PromptKind): PromptUnderTest[] => allPrompts.filter((prompt) => prompt.kind === kind);

function fencedBlocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\\n\`\`\``, 'g'))].map((match) => match[1] ?? '');
}

function exampleObject(prompt: PromptUnderTest, key: string): Record<string, unknown> {
  // a fence holding only a variable ({{INSIGHTS_DATA}}) frames engine data, it is not an example
  const blocks = fencedBlocks(prompt.text, 'json').filter((block) => !/^\{\{[A-Z_]+\}\}$/.test(block.trim()));
  expect(blocks, `${prompt.pack}/${prompt.file} has exactly one JSON example`).toHaveLength(1);
  const parsed = JSON.parse(blocks[0]!) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual([key]);
  return parsed;
}

describe('the shipped packs', () => {
  it('are gaming, ecommerce, social, the domain-neutral general and the hidden system-test', () => {
    expect(packs.map((pack) => `${pack.slug}${pack.hidden ? ' (hidden)' : ''}`)).toEqual([
      'ecommerce',
      'gaming',
      'general',
      'social',
      'system-test (hidden)',
    ]);
    expect(loadPacks().map((pack) => pack.slug)).toEqual(['ecommerce', 'gaming', 'general', 'social']);
  });

  it.each([
    ['gaming', ['match3', 'idle', 'casual'], ['churn', 'engagement', 'monetization']],
    ['ecommerce', ['multi_category'], ['conversion', 'retention', 'revenue']],
    ['social', ['content_sharing'], ['growth', 'retention', 'engagement']],
    ['general', [], ['segments', 'durations', 'trends', 'concentration', 'anomalies']],
    ['system-test', ['quick', 'standard', 'thorough'], ['activity', 'quality']],
  ])('%s has its categories and base areas in priority order', (slug, categories, areas) => {
    const pack = packs.find((candidate) => candidate.slug === slug)!;
    expect(pack.categories.map((category) => category.id)).toEqual(categories);
    expect(resolveAreas(pack).map((area) => area.id)).toEqual(areas);
  });

  it('give every category at least one area of its own or an exploration context', () => {
    for (const pack of packs) {
      for (const category of pack.categories) {
        expect(category.exploration_context.trim().length + category.areas.length, `${pack.slug}/${category.id}`).toBeGreaterThan(0);
      }
    }
  });

  it('describe the project profile with an object schema whose sections are typed', () => {
    for (const pack of packs) {
      const properties = pack.profile_schema.properties as Record<string, Record<string, unknown>>;
      expect(Object.keys(properties).length, pack.slug).toBeGreaterThan(0);
      for (const [name, section] of Object.entries(properties)) expect(section.type, `${pack.slug}.${name}`).toBe('object');
    }
  });
});

describe('every shipped prompt', () => {
  it.each(allPrompts.map((prompt) => [`${prompt.pack}/${prompt.file}`, prompt] as const))(
    '%s renders with the engine variables',
    (_name, prompt) => {
      const values = valuesFor(prompt.kind);
      const rendered = renderTemplate(prompt.text, values, { file: prompt.file, allowed: ALLOWED_VARIABLES[prompt.kind] });
      expect(rendered).not.toMatch(/\{\{[A-Z_]+\}\}/);
      for (const required of REQUIRED_VARIABLES[prompt.kind]) expect(rendered).toContain(values[required]);
    },
  );

  it('never uses the unsafe {{FILTER}} AND … pattern or vendor-only SQL', () => {
    for (const prompt of allPrompts) {
      expect(prompt.text, prompt.file).not.toContain('{{FILTER}}');
      for (const sql of fencedBlocks(prompt.text, 'sql')) {
        expect(sql, `${prompt.pack}/${prompt.file}`).not.toContain('`');
        expect(sql).not.toMatch(/\b(DATE_SUB|DATE_ADD|SAFE_DIVIDE|TIMESTAMP_SUB|FORMAT_DATE)\s*\(/i);
      }
    }
  });
});

describe('the exploration prompts', () => {
  const explorations = byKind('exploration');

  it('show every budget, taken from the engine variables rather than written as numbers', () => {
    for (const prompt of explorations) {
      for (const name of ALLOWED_VARIABLES.exploration) expect(prompt.text, `${prompt.pack}: ${name}`).toContain(`{{${name}}}`);
    }
  });

  it('give one example per action, each a single JSON object with exactly one action key', () => {
    for (const prompt of explorations) {
      const examples = fencedBlocks(prompt.text, 'json').map((block) => JSON.parse(block) as Record<string, unknown>);
      const actions = examples.map((example) => ['query', 'lookup_schema', 'search_tables', 'done'].filter((key) => key in example));
      expect(actions, prompt.pack).toEqual([['query'], ['lookup_schema'], ['search_tables'], ['done']]);
      const [query, lookup, search, done] = examples as [
        Record<string, unknown>,
        Record<string, unknown>,
        Record<string, unknown>,
        Record<string, unknown>,
      ];
      expect(Object.keys(query).sort()).toEqual(['query', 'query_purpose', 'thinking']);
      expect(
        Array.isArray(lookup.lookup_schema) &&
          (lookup.lookup_schema as unknown[]).every((ref) => typeof ref === 'string' && ref.includes('.')),
      ).toBe(true);
      expect(typeof search.search_tables).toBe('string');
      expect(search.search_top_k).toBeLessThanOrEqual(30);
      expect(done).toEqual({ done: true, summary: expect.any(String) });
    }
  });

  describe('example SQL', () => {
    let connection: DuckDBConnection;
    let instance: DuckDBInstance;

    beforeAll(async () => {
      await loadModule();
      instance = await DuckDBInstance.create(':memory:');
      connection = await instance.connect();
    });

    afterAll(() => {
      connection?.closeSync();
      instance?.closeSync();
    });

    const statements = explorations.flatMap((prompt) => {
      const queryExample = fencedBlocks(prompt.text, 'json')
        .map((block) => JSON.parse(block) as { query?: string })
        .flatMap((example) => (example.query ? [example.query] : []));
      return [...queryExample, ...fencedBlocks(prompt.text, 'sql')].map((sql, index) => [`${prompt.pack} #${index + 1}`, sql] as const);
    });

    it.each(statements)('%s is a single SELECT that PostgreSQL parses', (_name, sql) => {
      const statementsParsed = parseSync(sql).stmts ?? [];
      expect(statementsParsed).toHaveLength(1);
      expect(Object.keys(statementsParsed[0]?.stmt ?? {})).toEqual(['SelectStmt']);
    });

    it.each(statements)('%s is a SELECT that DuckDB parses', async (_name, sql) => {
      const reader = await connection.runAndReadAll(`SELECT json_serialize_sql('${sql.replaceAll("'", "''")}') AS tree`);
      const tree = JSON.parse(String(reader.getRows()[0]?.[0])) as {
        error: boolean;
        error_message?: string;
        statements?: Array<{ node: { type: string } }>;
      };
      expect(tree.error_message).toBeUndefined();
      expect(tree.statements?.map((statement) => statement.node.type)).toEqual(['SELECT_NODE']);
    });
  });
});

describe('the analysis prompts', () => {
  /** What the model returns per insight: the parser's contract (findings and/or a claim, optional words). */
  const modelInsightSchema = rawInsightSchema;
  /** `claim` is optional in the contract: the engine appends the claim instructions to every analysis prompt. */
  const expectedKeys = Object.keys(rawInsightSchema.shape)
    .filter((key) => key !== 'claim')
    .sort();

  it.each(byKind('analysis').map((prompt) => [`${prompt.pack}/${prompt.file}`, prompt] as const))(
    '%s shows an insight example with exactly the contract fields',
    (_name, prompt) => {
      const { insights } = exampleObject(prompt, 'insights') as { insights: Array<Record<string, unknown>> };
      expect(insights.length).toBeGreaterThan(0);
      for (const insight of insights) {
        expect(
          Object.keys(insight)
            .filter((key) => key !== 'claim')
            .sort(),
        ).toEqual(expectedKeys);
        const parsed = modelInsightSchema.parse(insight);
        expect(parsed.findings?.length ?? 0).toBeGreaterThan(0);
        expect(parsed.affected_count).toBeGreaterThan(0);
      }
    },
  );

  it('explain the mined findings, the digest fields, the citation rule and the empty answer', () => {
    for (const prompt of byKind('analysis')) {
      for (const phrase of [
        'head_rows',
        'tail_rows',
        'all_rows',
        'row_count',
        'p25',
        'top',
        'source_steps',
        'No invented numbers',
        '{"insights": []}',
        'findings',
      ]) {
        expect(prompt.text, `${prompt.pack}/${prompt.file}: ${phrase}`).toContain(phrase);
      }
      // severity follows effect and support, set by the engine: the prompts no longer ask the model to rate it
      expect(prompt.text).toContain('Severity follows the finding');
    }
  });
});

describe('the recommendation prompts', () => {
  const modelRecommendationSchema = recommendationSchema.omit({ id: true, segment_check: true }).strict();
  const expectedKeys = Object.keys(modelRecommendationSchema.shape).sort();

  it.each(byKind('recommendations').map((prompt) => [prompt.pack, prompt] as const))(
    '%s shows a recommendation example with exactly the contract fields',
    (_name, prompt) => {
      const { recommendations } = exampleObject(prompt, 'recommendations') as { recommendations: Array<Record<string, unknown>> };
      for (const recommendation of recommendations) {
        expect(Object.keys(recommendation).sort()).toEqual(expectedKeys);
        const parsed = modelRecommendationSchema.parse(recommendation);
        expect(parsed.related_insight_ids.length).toBeGreaterThan(0);
        expect(Object.keys(recommendation.expected_impact as object).sort()).toEqual(['estimated_improvement', 'metric', 'reasoning']);
      }
    },
  );

  it('forbid unknown and rejected insight ids and oversized segments', () => {
    for (const prompt of byKind('recommendations')) {
      expect(prompt.text).toContain('Do not use a rejected insight at all');
      expect(prompt.text).toContain('may contain only ids that appear in the insights above');
      expect(prompt.text).toContain('never larger than the verified count');
      expect(prompt.text).toContain('between 3 and 8 recommendations');
    }
  });
});
