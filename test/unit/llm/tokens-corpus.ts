/**
 * A deterministic calibration corpus shaped like what Assay actually sends to a model: SQL,
 * CompactResult JSON digests, markdown prompt templates, Level-0 catalog lines, exploration
 * actions, result rows full of identifiers, multilingual values and analyst prose.
 * Shared by the token-estimator test and `test/bench/token-calibration.ts`.
 */

export const CONTENT_TYPES = [
  'sql',
  'json_digest',
  'markdown_prompt',
  'catalog_lines',
  'action_json',
  'result_rows',
  'multilingual',
  'non_latin',
  'opaque_ids',
  'prose',
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export interface CorpusSample {
  type: ContentType;
  text: string;
}

/** mulberry32: small, fast and good enough to make the corpus reproducible from one seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOUNS = [
  'user',
  'order',
  'session',
  'event',
  'player',
  'purchase',
  'item',
  'product',
  'campaign',
  'device',
  'country',
  'level',
  'reward',
  'cart',
  'payment',
  'refund',
  'subscription',
  'post',
  'comment',
  'follower',
  'invoice',
  'shipment',
  'warehouse',
  'category',
  'channel',
  'cohort',
  'retention',
  'revenue',
  'churn',
  'funnel',
  'experiment',
];
const ADJECTIVES = [
  'daily',
  'active',
  'total',
  'average',
  'first',
  'last',
  'unique',
  'paid',
  'organic',
  'mobile',
  'weekly',
  'new',
  'returning',
  'failed',
];
const VERBS = ['increased', 'dropped', 'doubled', 'stayed flat', 'spiked', 'declined', 'recovered', 'peaked', 'shifted'];
const PROSE_WORDS = [
  'the',
  'of',
  'and',
  'in',
  'users',
  'who',
  'were',
  'during',
  'compared',
  'with',
  'previous',
  'period',
  'segment',
  'significantly',
  'higher',
  'lower',
  'than',
  'which',
  'suggests',
  'that',
  'onboarding',
  'conversion',
  'pricing',
  'experience',
  'likely',
  'driver',
  'because',
  'most',
  'customers',
  'abandon',
  'checkout',
  'after',
  'shipping',
  'costs',
  'appear',
  'analysis',
  'shows',
  'strong',
  'correlation',
  'between',
  'engagement',
  'long-term',
  'value',
];
const MULTILINGUAL_VALUES = [
  'São Paulo',
  'Zürich',
  'Kraków',
  'Île-de-France',
  'München',
  'Łódź',
  'Ñuñoa',
  'Reykjavík',
  '東京',
  '大阪',
  '서울',
  '北京市',
  'Москва',
  'Санкт-Петербург',
  'İstanbul',
  'Αθήνα',
  'مدينة دبي',
  'ชุดเดรส',
  'Café crème',
  'naïve coöperation',
  '🎮 Starter Pack',
  '⭐ Premium',
  'crème brûlée',
  'Ångström',
  '¥1,200',
  '€49,99',
];

/** Words in scripts whose tokens are far denser than English: the estimator must not under-count them. */
const NON_LATIN_WORDS = [
  '売上',
  '顧客',
  '前年',
  '増加',
  'しました',
  '主な',
  '要因',
  '新規',
  '獲得',
  '地域',
  '注文',
  '平均',
  '単価',
  'ユーザー',
  '継続率',
  '低下',
  'です',
  'の',
  'は',
  'が',
  'を',
  '用户',
  '订单',
  '收入',
  '增长',
  '下降',
  '地区',
  '转化率',
  '活跃',
  '留存',
  '本月',
  '相比',
  'выручка',
  'пользователи',
  'заказы',
  'выросла',
  'снизилась',
  'регион',
  'средний',
  'чек',
  'по',
  'сравнению',
  'с',
  'годом',
  'الإيرادات',
  'المستخدمين',
  'الطلبات',
  'زيادة',
  'انخفاض',
  'المنطقة',
  '매출',
  '사용자',
  '주문',
  '증가',
  '감소',
  '지역',
  '평균',
  '🎮',
  '🔥',
  '💎',
  '🚀',
  '📈',
  '📉',
  '✅',
];

interface Rng {
  next: () => number;
  int: (min: number, max: number) => number;
  pick: <T>(items: readonly T[]) => T;
}

function makeRng(seed: number): Rng {
  const next = seededRandom(seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return { next, int, pick: (items) => items[int(0, items.length - 1)]! };
}

function identifier(rng: Rng): string {
  return rng.next() < 0.5 ? `${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}` : `${rng.pick(NOUNS)}_${rng.pick(NOUNS)}_id`;
}

function tableName(rng: Rng): string {
  const prefix = rng.pick(['fact_', 'dim_', 'stg_', '', 'raw_']);
  return `${rng.pick(['analytics', 'public', 'warehouse', 'prod_events'])}.${prefix}${rng.pick(NOUNS)}s`;
}

function uuid(rng: Rng): string {
  const hex = (length: number): string => Array.from({ length }, () => rng.int(0, 15).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${rng.pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
}

function isoTimestamp(rng: Rng): string {
  const date = new Date(Date.UTC(2025, rng.int(0, 11), rng.int(1, 28), rng.int(0, 23), rng.int(0, 59), rng.int(0, 59)));
  return date.toISOString();
}

function decimal(rng: Rng): number {
  const magnitude = 10 ** rng.int(0, 6);
  return Math.round(rng.next() * magnitude * 10 ** rng.int(0, 4)) / 10 ** rng.int(0, 4);
}

function sqlQuery(rng: Rng): string {
  const table = tableName(rng);
  const columns = Array.from({ length: rng.int(2, 6) }, () => identifier(rng));
  const cte = rng.next() < 0.5;
  const body = [
    `SELECT ${columns.map((column) => (rng.next() < 0.3 ? `"${column}"` : column)).join(', ')},`,
    `       COUNT(DISTINCT user_id) AS ${rng.pick(ADJECTIVES)}_users,`,
    `       SUM(CASE WHEN status = '${rng.pick(['paid', 'refunded', 'failed'])}' THEN amount_usd ELSE 0 END) AS revenue,`,
    `       ROUND(AVG(duration_seconds), 2) AS avg_duration`,
    `FROM ${cte ? 'base' : table} t`,
    rng.next() < 0.6 ? `LEFT JOIN ${tableName(rng)} d ON d.${rng.pick(NOUNS)}_id = t.${rng.pick(NOUNS)}_id` : '',
    `WHERE t.created_at >= DATE '2025-${String(rng.int(1, 12)).padStart(2, '0')}-01' AND t.amount_usd > ${decimal(rng)}`,
    `GROUP BY ${columns.map((_, index) => index + 1).join(', ')}`,
    `HAVING COUNT(*) > ${rng.int(5, 500)}`,
    `ORDER BY ${rng.int(1, columns.length)} DESC`,
    `LIMIT ${rng.pick([10, 20, 50, 100, 1000])}`,
  ].filter((line) => line !== '');
  const prefix = cte
    ? `WITH base AS (\n  SELECT * FROM ${table}\n  WHERE ${identifier(rng)} IS NOT NULL -- exclude ${rng.pick(NOUNS)}s without data\n)\n`
    : '';
  return `${prefix}${body.join('\n')};`;
}

function cellValue(rng: Rng): string | number | boolean | null {
  switch (rng.int(0, 7)) {
    case 0:
      return uuid(rng);
    case 1:
      return isoTimestamp(rng);
    case 2:
      return decimal(rng);
    case 3:
      return rng.int(0, 5_000_000);
    case 4:
      return `${rng.pick(PROSE_WORDS)}.${rng.pick(NOUNS)}${rng.int(1, 999)}@example.com`;
    case 5:
      return rng.next() < 0.5;
    case 6:
      return null;
    default:
      return `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
  }
}

function row(rng: Rng, columns: string[]): Record<string, string | number | boolean | null> {
  return Object.fromEntries(columns.map((column) => [column, cellValue(rng)]));
}

function jsonDigest(rng: Rng): string {
  const columns = Array.from({ length: rng.int(3, 8) }, () => identifier(rng));
  const digest = {
    step: rng.int(1, 40),
    purpose: `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}s by ${rng.pick(NOUNS)}`,
    row_count: rng.int(1, 2_000_000),
    columns: columns.map((name) => ({
      name,
      kind: rng.pick(['number', 'string', 'timestamp', 'boolean']),
      null_count: rng.int(0, 9000),
      distinct: rng.int(1, 500_000),
      min: decimal(rng),
      p25: decimal(rng),
      median: decimal(rng),
      p75: decimal(rng),
      max: decimal(rng),
      top: Array.from({ length: rng.int(0, 5) }, () => ({ value: String(cellValue(rng)), count: rng.int(1, 90_000) })),
    })),
    head_rows: Array.from({ length: rng.int(1, 6) }, () => row(rng, columns)),
  };
  return rng.next() < 0.5 ? JSON.stringify(digest, null, 2) : JSON.stringify(digest);
}

function markdownPrompt(rng: Rng): string {
  const lines = [`# ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} analysis`, '', '## Your task', ''];
  for (let index = 0; index < rng.int(4, 12); index += 1) {
    lines.push(`- ${proseSentence(rng)} Use {{${rng.pick(['DATASET', 'SCHEMA_INFO', 'FILTER', 'QUERY_RESULTS'])}}} when needed.`);
  }
  lines.push('', '## Output format', '', 'Respond with JSON only:', '```json');
  lines.push(
    JSON.stringify(
      { insights: [{ id: 'string', name: 'string', affected_count: 0, severity: 'high|medium|low', source_steps: [1, 2] }] },
      null,
      2,
    ),
  );
  lines.push('```', '', `**Never** guess column names: call \`lookup_schema\` first (budget: ${rng.int(5, 30)} calls).`);
  return lines.join('\n');
}

function catalogLines(rng: Rng): string {
  const lines = ['## Tables (name, rows, key columns)'];
  for (let index = 0; index < rng.int(5, 60); index += 1) {
    const columns = Array.from({ length: rng.int(2, 6) }, () => identifier(rng));
    lines.push(`- ${tableName(rng)} (${rng.int(10, 90_000_000).toLocaleString('en-US')} rows): ${columns.join(', ')}`);
  }
  return lines.join('\n');
}

function actionJson(rng: Rng): string {
  return JSON.stringify(
    { action: 'query', thinking: `${proseSentence(rng)} ${proseSentence(rng)}`, query_purpose: proseSentence(rng), query: sqlQuery(rng) },
    null,
    rng.next() < 0.5 ? 2 : undefined,
  );
}

function resultRows(rng: Rng): string {
  const columns = Array.from({ length: rng.int(3, 7) }, () => identifier(rng));
  const lines = [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
  for (let index = 0; index < rng.int(3, 40); index += 1) {
    lines.push(`| ${columns.map(() => String(cellValue(rng))).join(' | ')} |`);
  }
  return lines.join('\n');
}

function multilingual(rng: Rng): string {
  const rows = Array.from({ length: rng.int(3, 25) }, () => ({
    city: rng.pick(MULTILINGUAL_VALUES),
    product: `${rng.pick(MULTILINGUAL_VALUES)} ${rng.pick(NOUNS)}`,
    orders: rng.int(1, 90_000),
    revenue: decimal(rng),
  }));
  return JSON.stringify(rows, null, rng.next() < 0.5 ? 2 : undefined);
}

function nonLatin(rng: Rng): string {
  const sentences = Array.from(
    { length: rng.int(2, 20) },
    () =>
      Array.from({ length: rng.int(4, 16) }, () => rng.pick(NON_LATIN_WORDS)).join(rng.next() < 0.5 ? ' ' : '') +
      `（${rng.int(1, 99)}%）。`,
  );
  return sentences.join(rng.next() < 0.5 ? '\n' : ' ');
}

/** Values that tokenize worst: hashes, base64, camelCase identifiers, URLs, random ids. */
function opaqueId(rng: Rng): string {
  const bytes = (length: number): Buffer => Buffer.from(Array.from({ length }, () => rng.int(0, 255)));
  const lowercase = (length: number): string => Array.from({ length }, () => String.fromCharCode(97 + rng.int(0, 25))).join('');
  switch (rng.int(0, 6)) {
    case 0:
      return bytes(32).toString('hex');
    case 1:
      return bytes(rng.int(12, 90)).toString('base64');
    case 2:
      return `${rng.pick(NOUNS)}${rng.pick(ADJECTIVES).replace(/^./, (c) => c.toUpperCase())}${rng.pick(NOUNS).replace(/^./, (c) => c.toUpperCase())}Id`;
    case 3:
      return `https://cdn.example.com/${rng.pick(NOUNS)}/${uuid(rng)}?sig=${bytes(16).toString('base64url')}&ts=${rng.int(1e9, 2e9)}`;
    case 4:
      return lowercase(rng.int(6, 40));
    case 5:
      return uuid(rng);
    default:
      return `${bytes(12).toString('base64url')}.${bytes(30).toString('base64url')}.${bytes(24).toString('base64url')}`;
  }
}

function opaqueIds(rng: Rng): string {
  const rows = Array.from({ length: rng.int(2, 30) }, () => ({ id: opaqueId(rng), ref: opaqueId(rng), n: rng.int(0, 1000) }));
  return rng.next() < 0.5 ? JSON.stringify(rows) : rows.map((entry) => `${entry.id}\t${entry.ref}\t${entry.n}`).join('\n');
}

function proseSentence(rng: Rng): string {
  const words = Array.from({ length: rng.int(6, 22) }, () => rng.pick(PROSE_WORDS));
  const figure = rng.next() < 0.5 ? ` by ${rng.int(2, 95)}%` : ` to ${rng.int(100, 99_999).toLocaleString('en-US')}`;
  const sentence = `${words.join(' ')}; ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}s ${rng.pick(VERBS)}${figure}.`;
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

function prose(rng: Rng): string {
  return Array.from({ length: rng.int(2, 30) }, () => proseSentence(rng)).join(' ');
}

const GENERATORS: Record<ContentType, (rng: Rng) => string> = {
  sql: (rng) => Array.from({ length: rng.int(1, 4) }, () => sqlQuery(rng)).join('\n\n'),
  json_digest: jsonDigest,
  markdown_prompt: markdownPrompt,
  catalog_lines: catalogLines,
  action_json: actionJson,
  result_rows: resultRows,
  multilingual,
  non_latin: nonLatin,
  opaque_ids: opaqueIds,
  prose,
};

/** `perType` samples of every content type, identical on every call with the same seed. */
export function buildCalibrationCorpus(perType = 60, seed = 20261123): CorpusSample[] {
  const rng = makeRng(seed);
  return CONTENT_TYPES.flatMap((type) => Array.from({ length: perType }, () => ({ type, text: GENERATORS[type](rng) })));
}
