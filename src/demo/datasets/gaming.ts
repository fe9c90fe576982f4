/**
 * Gaming demo warehouse: a free-to-play puzzle game's installs (January-May 2024), sessions, level
 * progress and in-app purchases, with four planted patterns (see `patterns`).
 */
import { scaledCount, type DemoDataset } from '../demo-dataset.js';
import type { PlantedPatternSpec } from '../planted-pattern.js';
import { uniformPickSql, weightedPickSql } from '../random-sql.js';

const PLAYERS_AT_SCALE_1 = 8_000;
const LEVEL_COUNT = 40;
/** Days of activity simulated after each install; covers D1, D7 and D30. */
const ACTIVITY_DAYS = 45;
/** The level most players never get past (planted pattern 1). */
const CLIFF_LEVEL = 12;
/** Chance of completing an ordinary level / the cliff level once started. */
const ORDINARY_LEVEL_PASS_RATE = 0.965;
const CLIFF_LEVEL_PASS_RATE = 0.42;

/** Retention curve per platform: chance of playing on day d is `scale * (d + 1) ^ -decay`. Android decays fastest (pattern 3). */
const RETENTION_CURVES = {
  iOS: { scale: 0.62, decay: 0.55 },
  Android: { scale: 0.55, decay: 1.0 },
  Web: { scale: 0.6, decay: 0.6 },
} as const;

const PRODUCT = {
  gemsSmall: 1,
  gemsMedium: 2,
  gemsLarge: 3,
  megaBooster: 4,
  starterBundle: 5,
  seasonPass: 6,
  extraLives: 7,
  removeAds: 8,
} as const;

/** Mega Booster Pack is picked in ~45% of purchases and, at $9.99, makes most of the revenue (pattern 4). */
const PURCHASE_PRODUCT_WEIGHTS = [
  [PRODUCT.megaBooster, 0.45],
  [PRODUCT.gemsSmall, 0.16],
  [PRODUCT.gemsMedium, 0.1],
  [PRODUCT.gemsLarge, 0.03],
  [PRODUCT.starterBundle, 0.09],
  [PRODUCT.seasonPass, 0.04],
  [PRODUCT.extraLives, 0.09],
  [PRODUCT.removeAds, 0.04],
] as const;

/** Levels flagged hard in the level design table; the cliff level is one of several, so the flag alone gives nothing away. */
const HARD_LEVELS = [8, CLIFF_LEVEL, 19, 27, 35];

function schemaSql(): string {
  return `
CREATE TABLE main.players (
  player_id BIGINT PRIMARY KEY, installed_at TIMESTAMP NOT NULL, platform VARCHAR NOT NULL, device_model VARCHAR,
  country_code VARCHAR, acquisition_source VARCHAR NOT NULL, install_app_version VARCHAR NOT NULL, has_linked_account BOOLEAN NOT NULL);

CREATE TABLE main.levels (
  level_number INTEGER PRIMARY KEY, world_number INTEGER NOT NULL, level_name VARCHAR NOT NULL,
  difficulty VARCHAR NOT NULL, moves_allowed INTEGER NOT NULL, introduced_in_version VARCHAR NOT NULL);

CREATE TABLE main.level_progress (
  player_id BIGINT NOT NULL, level_number INTEGER NOT NULL, started_at TIMESTAMP NOT NULL, completed_at TIMESTAMP,
  attempts INTEGER NOT NULL, stars SMALLINT, boosters_used INTEGER NOT NULL, PRIMARY KEY (player_id, level_number));

CREATE TABLE main.sessions (
  session_id BIGINT PRIMARY KEY, player_id BIGINT NOT NULL, started_at TIMESTAMP NOT NULL, duration_seconds INTEGER NOT NULL,
  platform VARCHAR NOT NULL, app_version VARCHAR NOT NULL, levels_played INTEGER NOT NULL, coins_earned INTEGER NOT NULL,
  network_type VARCHAR);

CREATE TABLE main.iap_products (
  product_id BIGINT PRIMARY KEY, store_sku VARCHAR NOT NULL, product_name VARCHAR NOT NULL, product_type VARCHAR NOT NULL,
  price_usd DECIMAL(8,2) NOT NULL, gems_granted INTEGER, is_active BOOLEAN NOT NULL);
INSERT INTO main.iap_products VALUES
  (${PRODUCT.gemsSmall}, 'com.puzzlequest.gems.small', 'Handful of Gems', 'currency', 0.99, 80, TRUE),
  (${PRODUCT.gemsMedium}, 'com.puzzlequest.gems.medium', 'Pouch of Gems', 'currency', 4.99, 450, TRUE),
  (${PRODUCT.gemsLarge}, 'com.puzzlequest.gems.large', 'Chest of Gems', 'currency', 19.99, 2000, TRUE),
  (${PRODUCT.megaBooster}, 'com.puzzlequest.booster.mega', 'Mega Booster Pack', 'booster', 9.99, NULL, TRUE),
  (${PRODUCT.starterBundle}, 'com.puzzlequest.bundle.starter', 'Starter Bundle', 'bundle', 2.99, 200, TRUE),
  (${PRODUCT.seasonPass}, 'com.puzzlequest.pass.season', 'Season Pass', 'subscription', 7.99, NULL, TRUE),
  (${PRODUCT.extraLives}, 'com.puzzlequest.lives.5', 'Extra Lives x5', 'consumable', 1.99, NULL, TRUE),
  (${PRODUCT.removeAds}, 'com.puzzlequest.noads', 'Remove Ads', 'non_consumable', 3.99, NULL, FALSE);

CREATE TABLE main.purchases (
  purchase_id BIGINT PRIMARY KEY, player_id BIGINT NOT NULL, product_id BIGINT NOT NULL, purchased_at TIMESTAMP NOT NULL,
  price_usd DECIMAL(8,2) NOT NULL, store VARCHAR NOT NULL, store_transaction_id VARCHAR NOT NULL, is_refunded BOOLEAN NOT NULL);
`;
}

function playersSql(playerCount: number): string {
  const platform = weightedPickSql("rnd('player_platform', i)", [
    ['iOS', 0.44],
    ['Android', 0.46],
    ['Web', 0.1],
  ]);
  return `
INSERT INTO main.levels
SELECT level_number, 1 + (level_number - 1) // 10 AS world_number,
  ${uniformPickSql("rnd('level_name', level_number)", ['Candy Cove', 'Jelly Jungle', 'Sugar Summit', 'Toffee Tundra', 'Mint Marsh', 'Fudge Falls'])} || ' ' || level_number AS level_name,
  CASE WHEN level_number IN (${HARD_LEVELS.join(', ')}) THEN 'hard' WHEN level_number % 4 = 0 THEN 'medium' ELSE 'easy' END AS difficulty,
  (18 + floor(rnd('level_moves', level_number) * 22))::INTEGER AS moves_allowed,
  CASE WHEN level_number <= 30 THEN '3.0.0' ELSE '3.4.0' END AS introduced_in_version
FROM range(1, ${LEVEL_COUNT + 1}) t(level_number)
ORDER BY level_number;

INSERT INTO main.players
SELECT player_id, installed_at, platform,
  CASE platform
    WHEN 'iOS' THEN ${uniformPickSql("rnd('player_device', player_id)", ['iPhone 12', 'iPhone 13', 'iPhone 14', 'iPhone 15', 'iPad Air'])}
    WHEN 'Android' THEN ${uniformPickSql("rnd('player_device', player_id)", ['Galaxy S21', 'Galaxy A54', 'Pixel 7', 'Redmi Note 12', 'Moto G Power'])}
  END AS device_model,
  ${weightedPickSql("rnd('player_country', player_id)", [
    ['US', 0.3],
    ['BR', 0.12],
    ['IN', 0.12],
    ['DE', 0.1],
    ['GB', 0.08],
    ['JP', 0.08],
    ['MX', 0.08],
    ['FR', 0.07],
    [null, 0.05],
  ])} AS country_code,
  ${weightedPickSql("rnd('player_source', player_id)", [
    ['organic', 0.4],
    ['facebook_ads', 0.2],
    ['google_uac', 0.2],
    ['tiktok_ads', 0.12],
    ['cross_promo', 0.08],
  ])} AS acquisition_source,
  CASE WHEN installed_at < TIMESTAMP '2024-03-01' THEN '3.2.1' WHEN installed_at < TIMESTAMP '2024-05-01' THEN '3.3.0' ELSE '3.4.0' END AS install_app_version,
  rnd('player_linked', player_id) < 0.31 AS has_linked_account
FROM (
  SELECT i + 1 AS player_id,
    TIMESTAMP '2024-01-01' + to_seconds(floor(rnd('player_install', i) * 152 * 86400)::BIGINT) AS installed_at,
    ${platform} AS platform
  FROM range(${playerCount}) t(i)
)
ORDER BY player_id;
`;
}

function levelProgressSql(): string {
  return `
-- Each player attempts levels in order until the first level they fail to complete; level ${CLIFF_LEVEL} stops most of them (pattern 1).
CREATE TEMP TABLE stg_stuck_level AS
SELECT p.player_id, coalesce(min(l.level_number) FILTER (WHERE rnd2('level_pass', p.player_id, l.level_number)
    >= CASE WHEN l.level_number = ${CLIFF_LEVEL} THEN ${CLIFF_LEVEL_PASS_RATE} ELSE ${ORDINARY_LEVEL_PASS_RATE} END), ${LEVEL_COUNT + 1}) AS stuck_level,
  -- hours a player needs per level, growing with the level number
  0.2 + 2.5 * rnd('player_pace', p.player_id) AS pace_hours
FROM main.players p CROSS JOIN main.levels l
GROUP BY p.player_id;

INSERT INTO main.level_progress
SELECT player_id, level_number, started_at,
  CASE WHEN completed THEN started_at + to_seconds((attempts * (90 + floor(rnd2('level_duration', player_id, level_number) * 200)))::BIGINT) END AS completed_at,
  attempts,
  CASE WHEN completed THEN (1 + floor(rnd2('level_stars', player_id, level_number) * 3))::SMALLINT END AS stars,
  floor(-ln(1 - rnd2('level_boosters', player_id, level_number)) * CASE WHEN level_number = ${CLIFF_LEVEL} THEN 1.5 ELSE 0.3 END)::INTEGER AS boosters_used
FROM (
  SELECT s.player_id, lvl.level_number, lvl.level_number < s.stuck_level AS completed,
    p.installed_at + to_seconds(floor(pow(lvl.level_number - 1, 1.3) * s.pace_hours * 3600)::BIGINT) AS started_at,
    (1 + floor(-ln(1 - rnd2('level_attempts', s.player_id, lvl.level_number))
      * CASE WHEN lvl.level_number = ${CLIFF_LEVEL} THEN 4.5 WHEN lvl.level_number IN (${HARD_LEVELS.join(', ')}) THEN 1.6 ELSE 0.7 END))::INTEGER AS attempts
  FROM stg_stuck_level s
  JOIN main.players p ON p.player_id = s.player_id,
  LATERAL (SELECT unnest(range(1, least(s.stuck_level, ${LEVEL_COUNT}) + 1))::INTEGER AS level_number) lvl
)
ORDER BY player_id, level_number;
`;
}

function sessionsSql(): string {
  const curveCase = (field: 'scale' | 'decay'): string =>
    `CASE p.platform ${Object.entries(RETENTION_CURVES)
      .map(([platform, curve]) => `WHEN '${platform}' THEN ${curve[field]}`)
      .join(' ')} END`;
  return `
CREATE TEMP TABLE stg_active_days AS
SELECT p.player_id, p.platform, p.installed_at, d.day_number
FROM main.players p, LATERAL (SELECT unnest(range(${ACTIVITY_DAYS})) AS day_number) d
WHERE d.day_number = 0
   OR rnd2('player_active', p.player_id, d.day_number) < ${curveCase('scale')} * pow(d.day_number + 1, -${curveCase('decay')});

INSERT INTO main.sessions
SELECT row_number() OVER (ORDER BY started_at, player_id, day_number, session_number) AS session_id,
  player_id, started_at,
  (60 + floor(-ln(1 - rnd2('session_length', day_key, session_number)) * 420))::INTEGER AS duration_seconds,
  platform,
  CASE WHEN started_at < TIMESTAMP '2024-03-01' THEN '3.2.1' WHEN started_at < TIMESTAMP '2024-05-01' THEN '3.3.0' ELSE '3.4.0' END AS app_version,
  floor(rnd2('session_levels', day_key, session_number) * 6)::INTEGER AS levels_played,
  floor(rnd2('session_coins', day_key, session_number) * 900)::INTEGER AS coins_earned,
  ${weightedPickSql("rnd2('session_network', day_key, session_number)", [
    ['wifi', 0.62],
    ['cellular', 0.33],
    [null, 0.05],
  ])} AS network_type
FROM (
  SELECT a.player_id, a.platform, a.day_number, a.player_id * ${ACTIVITY_DAYS} + a.day_number AS day_key, s.session_number,
    CASE WHEN a.day_number = 0 AND s.session_number = 0 THEN a.installed_at
      ELSE a.installed_at + to_seconds(floor((a.day_number + rnd2('session_time', a.player_id * ${ACTIVITY_DAYS} + a.day_number, s.session_number) * 0.95) * 86400)::BIGINT) END AS started_at
  FROM stg_active_days a,
  LATERAL (SELECT unnest(range(1 + floor(-ln(1 - rnd('sessions_per_day', a.player_id * ${ACTIVITY_DAYS} + a.day_number)) * 0.8)::INTEGER)) AS session_number) s
)
ORDER BY session_id;
`;
}

function purchasesSql(): string {
  return `
-- Most payers buy for the first time within three days of installing (pattern 2).
CREATE TEMP TABLE stg_payers AS
SELECT player_id, installed_at, platform,
  CASE WHEN rnd('first_purchase_window', player_id) < 0.72 THEN floor(rnd('first_purchase_day', player_id) * 3)
       ELSE 3 + floor(-ln(1 - rnd('first_purchase_day', player_id)) * 12) END::INTEGER AS first_purchase_day,
  (1 + floor(-ln(1 - rnd('purchase_count', player_id)) * 1.6))::INTEGER AS purchase_count
FROM main.players
WHERE rnd('is_payer', player_id) < CASE platform WHEN 'iOS' THEN 0.08 WHEN 'Android' THEN 0.055 ELSE 0.04 END;

INSERT INTO main.purchases
SELECT row_number() OVER (ORDER BY purchased_at, player_id, purchase_number) AS purchase_id,
  player_id, product_id, purchased_at, pr.price_usd,
  CASE platform WHEN 'iOS' THEN 'app_store' WHEN 'Android' THEN 'google_play' ELSE 'xsolla' END AS store,
  upper(substr(md5(player_id::VARCHAR || '-' || purchase_number::VARCHAR || '-' || product_id::VARCHAR || '-' || epoch(purchased_at)::VARCHAR), 1, 16)) AS store_transaction_id,
  rnd2('purchase_refund', player_id, purchase_number) < 0.02 AS is_refunded
FROM (
  SELECT pay.player_id, pay.platform, n.purchase_number,
    ${weightedPickSql("rnd2('purchase_product', pay.player_id, n.purchase_number)", PURCHASE_PRODUCT_WEIGHTS)} AS product_id,
    pay.installed_at + to_seconds(floor((pay.first_purchase_day
      + CASE WHEN n.purchase_number = 0 THEN 0 ELSE n.purchase_number * (2 + 10 * rnd2('purchase_gap', pay.player_id, n.purchase_number)) END
      + 0.85 * rnd2('purchase_time', pay.player_id, n.purchase_number)) * 86400)::BIGINT) AS purchased_at
  FROM stg_payers pay, LATERAL (SELECT unnest(range(pay.purchase_count)) AS purchase_number) n
) p
JOIN main.iap_products pr USING (product_id)
ORDER BY purchase_id;
`;
}

const patterns: PlantedPatternSpec[] = [
  {
    id: 'gaming-level-12-churn-cliff',
    area: 'churn',
    title: `Churn cliff at level ${CLIFF_LEVEL}`,
    description: `Fewer than half of the players who start level ${CLIFF_LEVEL} ever complete it, while other levels keep about 96% of their players; level ${CLIFF_LEVEL} is where most progression ends.`,
    keywords: [`level ${CLIFF_LEVEL}`, 'churn', 'cliff', 'progression', 'drop'],
    tables: ['main.level_progress'],
    check: {
      sql: `WITH pass_through AS (
  SELECT level_number, count(completed_at)::DOUBLE / count(*) AS completion_rate
  FROM main.level_progress GROUP BY level_number
), rates AS (
  SELECT max(completion_rate) FILTER (WHERE level_number = ${CLIFF_LEVEL}) AS level_${CLIFF_LEVEL}_completion_rate,
         median(completion_rate) FILTER (WHERE level_number <> ${CLIFF_LEVEL} AND level_number <= 30) AS median_other_level_completion_rate
  FROM pass_through
)
SELECT level_${CLIFF_LEVEL}_completion_rate / median_other_level_completion_rate AS value, * FROM rates`,
      expect: { op: '<', value: 0.6 },
    },
  },
  {
    id: 'gaming-early-payer-conversion',
    area: 'monetization',
    title: 'Payer conversion is concentrated in days 1-3 after install',
    description: 'About three quarters of paying players make their first purchase within three days of installing; few convert later.',
    keywords: ['payer', 'first purchase', 'conversion', 'install', 'day'],
    tables: ['main.purchases', 'main.players'],
    check: {
      sql: `WITH first_purchase AS (
  SELECT p.player_id, min(pu.purchased_at) AS first_purchased_at, min(p.installed_at) AS installed_at
  FROM main.purchases pu JOIN main.players p ON p.player_id = pu.player_id
  GROUP BY p.player_id
)
SELECT avg((first_purchased_at < installed_at + INTERVAL 3 DAY)::INTEGER) AS value, count(*) AS payers
FROM first_purchase`,
      expect: { op: '>', value: 0.6 },
    },
  },
  {
    id: 'gaming-android-d7-retention',
    area: 'engagement',
    title: 'Android has much lower D7 retention',
    description: 'Android players return on day 7 at less than half the rate of iOS and Web players, although D0 volumes are similar.',
    keywords: ['android', 'd7', 'retention', 'platform', 'day 7'],
    tables: ['main.players', 'main.sessions'],
    check: {
      sql: `WITH day7 AS (
  SELECT p.player_id, p.platform,
    EXISTS (SELECT 1 FROM main.sessions s WHERE s.player_id = p.player_id AND s.started_at::DATE = p.installed_at::DATE + 7) AS retained_d7
  FROM main.players p
), rates AS (
  SELECT avg(retained_d7::INTEGER) FILTER (WHERE platform = 'Android') AS android_d7_retention,
         avg(retained_d7::INTEGER) FILTER (WHERE platform <> 'Android') AS other_platforms_d7_retention
  FROM day7
)
SELECT android_d7_retention / other_platforms_d7_retention AS value, * FROM rates`,
      expect: { op: '<', value: 0.65 },
    },
  },
  {
    id: 'gaming-mega-booster-revenue',
    area: 'monetization',
    title: 'Mega Booster Pack dominates IAP revenue',
    description: 'One product, the Mega Booster Pack, brings in well over half of all in-app purchase revenue.',
    keywords: ['mega booster', 'booster', 'revenue', 'iap', 'product'],
    tables: ['main.purchases', 'main.iap_products'],
    check: {
      sql: `WITH revenue AS (
  SELECT pr.product_name, sum(pu.price_usd) AS revenue_usd
  FROM main.purchases pu JOIN main.iap_products pr ON pr.product_id = pu.product_id
  WHERE NOT pu.is_refunded
  GROUP BY pr.product_name
)
SELECT (sum(revenue_usd) FILTER (WHERE product_name = 'Mega Booster Pack') / sum(revenue_usd))::DOUBLE AS value,
  sum(revenue_usd)::DOUBLE AS total_revenue_usd
FROM revenue`,
      expect: { op: '>', value: 0.5 },
    },
  },
];

export const gamingDataset: DemoDataset = {
  kind: 'gaming',
  buildSql({ scale }) {
    return [schemaSql(), playersSql(scaledCount(PLAYERS_AT_SCALE_1, scale, 300)), levelProgressSql(), sessionsSql(), purchasesSql()];
  },
  patterns,
};
