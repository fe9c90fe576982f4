import { describe, expect, it } from 'vitest';
import { createLocalEmbedder, splitWords } from '../../../src/embed/local.js';
import { ValidationError } from '../../../src/errors/index.js';

function cosine(left: number[], right: number[]): number {
  let dot = 0;
  for (let index = 0; index < left.length; index++) dot += (left[index] as number) * (right[index] as number);
  return dot;
}

describe('the local hashing embedder', () => {
  const embedder = createLocalEmbedder();

  it('defaults to 384 dimensions and says so in its id', async () => {
    const [vector] = await embedder.embed(['orders']);
    expect(embedder.id).toBe('local:hash-384');
    expect(embedder.dimensions).toBe(384);
    expect(vector).toHaveLength(384);
  });

  it('gives the same text the same vector, bit for bit, across instances', async () => {
    const text = 'Daily revenue per customer_id, with refunds and chargebacks (EUR)';
    const [first] = await embedder.embed([text]);
    const [second] = await createLocalEmbedder().embed([text]);
    expect(Buffer.from(new Float64Array(first as number[]).buffer)).toEqual(Buffer.from(new Float64Array(second as number[]).buffer));
  });

  it('returns unit-length vectors, and a zero vector for text without words', async () => {
    const [vector, empty] = await embedder.embed(['cart abandonment events by session', '  --  ']);
    expect(Math.sqrt(cosine(vector as number[], vector as number[]))).toBeCloseTo(1, 12);
    expect((empty as number[]).every((value) => value === 0)).toBe(true);
  });

  it('ranks related texts above unrelated ones', async () => {
    const [query, related, unrelated] = await embedder.embed([
      'customers who abandoned their shopping cart',
      'main.cart_abandonment_events: one row per abandoned cart, customer_id, cart_value',
      'main.weather_daily: temperature and rainfall per city and day',
    ]);
    const relatedScore = cosine(query as number[], related as number[]);
    const unrelatedScore = cosine(query as number[], unrelated as number[]);
    expect(relatedScore).toBeGreaterThan(unrelatedScore + 0.1);
  });

  it('matches snake_case and camelCase identifiers to the plain words', async () => {
    const [snake, camel, words, other] = await embedder.embed(['order_items', 'orderItems', 'order items', 'shipping labels']);
    expect(cosine(snake as number[], words as number[])).toBeCloseTo(1, 9);
    expect(cosine(camel as number[], words as number[])).toBeCloseTo(1, 9);
    expect(cosine(other as number[], words as number[])).toBeLessThan(0.3);
  });

  it('honours a custom size and rejects a nonsensical one', async () => {
    const small = createLocalEmbedder({ dimensions: 64 });
    expect(small.id).toBe('local:hash-64');
    expect((await small.embed(['x']))[0]).toHaveLength(64);
    expect(() => createLocalEmbedder({ dimensions: 3 })).toThrow(ValidationError);
  });
});

describe('splitWords', () => {
  it('splits snake_case, camelCase and acronyms into lower-case words', () => {
    expect(splitWords('order_items')).toEqual(['order', 'items']);
    expect(splitWords('orderItemsV2')).toEqual(['order', 'items', 'v2']);
    expect(splitWords('HTTPServer log')).toEqual(['http', 'server', 'log']);
    expect(splitWords('"main"."Orders"')).toEqual(['main', 'orders']);
  });
});
