/**
 * Social demo warehouse: a photo-and-video sharing app's sign-ups (January-June 2024), daily
 * activity, posts and interactions, with three planted patterns (see `patterns`).
 */
import { scaledCount, type DemoDataset } from '../demo-dataset.js';
import type { PlantedPatternSpec } from '../planted-pattern.js';
import { weightedPickSql } from '../random-sql.js';

/** Users who sign up steadily over 26 weeks, plus the referral-campaign surge in one week (pattern 3). */
const STEADY_USERS_AT_SCALE_1 = 9_000;
const CAMPAIGN_SURGE_USERS_AT_SCALE_1 = 800;
const SIGNUP_WINDOW_DAYS = 182;
/** Days of activity simulated after each sign-up; covers week-5 (day 28-34) retention. */
const ACTIVITY_DAYS = 60;

const CAMPAIGN = { newYear: 1, inviteThree: 2, summerSquad: 3 } as const;
/** The referral campaign whose week produced the sign-up spike. */
const SURGE_CAMPAIGN = {
  id: CAMPAIGN.inviteThree,
  name: 'Invite 3 Friends, Get Premium',
  startsOn: '2024-03-11',
  endsOn: '2024-03-17',
} as const;

/** The sign-up channel whose users stop coming back (pattern 1). */
const LOW_RETENTION_CHANNEL = 'tiktok_ads';
/** Chance of being active on day d is `scale * (d + 1) ^ -decay`. */
const RETENTION_CURVES = {
  lowRetentionChannel: { scale: 0.4, decay: 0.8 },
  otherChannels: { scale: 0.55, decay: 0.45 },
} as const;

/** Mean interactions a post draws, by content type: video draws the most by far (pattern 2). */
const MEAN_INTERACTIONS_BY_CONTENT_TYPE = { text: 3, image: 5.5, video: 14, link: 2, poll: 6 } as const;

function schemaSql(): string {
  return `
CREATE TABLE main.referral_campaigns (
  campaign_id BIGINT PRIMARY KEY, campaign_name VARCHAR NOT NULL, starts_on DATE NOT NULL, ends_on DATE NOT NULL,
  reward_type VARCHAR NOT NULL, reward_value DECIMAL(8,2));
INSERT INTO main.referral_campaigns VALUES
  (${CAMPAIGN.newYear}, 'New Year, New Friends', DATE '2024-01-08', DATE '2024-01-21', 'badge', NULL),
  (${SURGE_CAMPAIGN.id}, '${SURGE_CAMPAIGN.name}', DATE '${SURGE_CAMPAIGN.startsOn}', DATE '${SURGE_CAMPAIGN.endsOn}', 'premium_month', 4.99),
  (${CAMPAIGN.summerSquad}, 'Summer Squad', DATE '2024-06-03', DATE '2024-06-16', 'credits', 2.00);

CREATE TABLE main.users (
  user_id BIGINT PRIMARY KEY, username VARCHAR NOT NULL, signed_up_at TIMESTAMP NOT NULL, signup_channel VARCHAR NOT NULL,
  referral_campaign_id BIGINT, referred_by_user_id BIGINT, country_code VARCHAR, age_bracket VARCHAR,
  signup_platform VARCHAR NOT NULL, is_verified BOOLEAN NOT NULL);

CREATE TABLE main.user_daily_activity (
  user_id BIGINT NOT NULL, activity_date DATE NOT NULL, session_count INTEGER NOT NULL, minutes_spent INTEGER NOT NULL,
  posts_viewed INTEGER NOT NULL, PRIMARY KEY (user_id, activity_date));

CREATE TABLE main.posts (
  post_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL, created_at TIMESTAMP NOT NULL, content_type VARCHAR NOT NULL,
  caption_length INTEGER NOT NULL, has_hashtags BOOLEAN NOT NULL, language_code VARCHAR, is_deleted BOOLEAN NOT NULL);

CREATE TABLE main.interactions (
  interaction_id BIGINT PRIMARY KEY, post_id BIGINT NOT NULL, user_id BIGINT NOT NULL, interaction_type VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL);
`;
}

function usersSql(steadyUsers: number, surgeUsers: number): string {
  const steadyChannel = weightedPickSql("rnd('user_channel', signup_key)", [
    ['organic', 0.34],
    ['app_store_search', 0.18],
    ['instagram_ads', 0.18],
    [LOW_RETENTION_CHANNEL, 0.18],
    ['referral', 0.12],
  ]);
  return `
CREATE TEMP TABLE stg_signups AS
SELECT i AS signup_key,
  TIMESTAMP '2024-01-01' + to_seconds(floor(rnd('user_signup', i) * ${SIGNUP_WINDOW_DAYS} * 86400)::BIGINT) AS signed_up_at,
  NULL::VARCHAR AS forced_channel
FROM range(${steadyUsers}) t(i)
UNION ALL
SELECT ${steadyUsers} + i,
  TIMESTAMP '${SURGE_CAMPAIGN.startsOn}' + to_seconds(floor(rnd('user_signup', ${steadyUsers} + i) * 7 * 86400)::BIGINT),
  'referral'
FROM range(${surgeUsers}) t(i);

CREATE TEMP TABLE stg_users AS
SELECT row_number() OVER (ORDER BY signed_up_at, signup_key) AS user_id, *
FROM (SELECT signup_key, signed_up_at, coalesce(forced_channel, ${steadyChannel}) AS signup_channel FROM stg_signups);

INSERT INTO main.users
SELECT u.user_id, 'user_' || u.user_id AS username, u.signed_up_at, u.signup_channel,
  CASE WHEN u.signup_channel = 'referral' THEN c.campaign_id END AS referral_campaign_id,
  CASE WHEN u.signup_channel = 'referral' AND u.user_id > 1 THEN 1 + floor(rnd('user_referrer', u.user_id) * (u.user_id - 1))::BIGINT END AS referred_by_user_id,
  ${weightedPickSql("rnd('user_country', u.user_id)", [
    ['US', 0.34],
    ['GB', 0.1],
    ['BR', 0.12],
    ['IN', 0.14],
    ['DE', 0.08],
    ['ID', 0.08],
    ['MX', 0.07],
    [null, 0.07],
  ])} AS country_code,
  ${weightedPickSql("rnd('user_age', u.user_id)", [
    ['13-17', 0.12],
    ['18-24', 0.34],
    ['25-34', 0.28],
    ['35-44', 0.12],
    ['45+', 0.06],
    [null, 0.08],
  ])} AS age_bracket,
  ${weightedPickSql("rnd('user_platform', u.user_id)", [
    ['ios', 0.46],
    ['android', 0.44],
    ['web', 0.1],
  ])} AS signup_platform,
  rnd('user_verified', u.user_id) < 0.04 AS is_verified
FROM stg_users u
LEFT JOIN main.referral_campaigns c ON u.signed_up_at >= c.starts_on AND u.signed_up_at < c.ends_on + INTERVAL 1 DAY
ORDER BY u.user_id;
`;
}

function activitySql(): string {
  const curve = (field: 'scale' | 'decay'): string =>
    `CASE WHEN u.signup_channel = '${LOW_RETENTION_CHANNEL}' THEN ${RETENTION_CURVES.lowRetentionChannel[field]} ELSE ${RETENTION_CURVES.otherChannels[field]} END`;
  return `
INSERT INTO main.user_daily_activity
SELECT user_id, activity_date, session_count,
  (session_count * (3 + floor(rnd('activity_minutes', day_key) * 14)))::INTEGER AS minutes_spent,
  (session_count * floor(5 + rnd('activity_views', day_key) * 40))::INTEGER AS posts_viewed
FROM (
  SELECT u.user_id, (u.signed_up_at::DATE + d.day_number::INTEGER) AS activity_date, u.user_id * ${ACTIVITY_DAYS} + d.day_number AS day_key,
    (1 + floor(-ln(1 - rnd('activity_sessions', u.user_id * ${ACTIVITY_DAYS} + d.day_number)) * 1.2))::INTEGER AS session_count
  FROM main.users u, LATERAL (SELECT unnest(range(${ACTIVITY_DAYS})) AS day_number) d
  WHERE d.day_number = 0
     OR rnd2('user_active', u.user_id, d.day_number) < ${curve('scale')} * pow(d.day_number + 1, -${curve('decay')})
)
ORDER BY user_id, activity_date;
`;
}

function postsSql(): string {
  const meanInteractions = `CASE content_type ${Object.entries(MEAN_INTERACTIONS_BY_CONTENT_TYPE)
    .map(([type, mean]) => `WHEN '${type}' THEN ${mean}`)
    .join(' ')} END`;
  return `
INSERT INTO main.posts
SELECT row_number() OVER (ORDER BY created_at, user_id, post_number) AS post_id, user_id, created_at, content_type,
  CASE WHEN content_type = 'text' THEN 40 + floor(rnd2('post_caption', day_key, post_number) * 260) ELSE floor(rnd2('post_caption', day_key, post_number) * 120) END::INTEGER AS caption_length,
  rnd2('post_hashtags', day_key, post_number) < 0.37 AS has_hashtags,
  ${weightedPickSql("rnd2('post_language', day_key, post_number)", [
    ['en', 0.58],
    ['pt', 0.12],
    ['es', 0.1],
    ['hi', 0.08],
    ['de', 0.06],
    [null, 0.06],
  ])} AS language_code,
  rnd2('post_deleted', day_key, post_number) < 0.015 AS is_deleted
FROM (
  SELECT a.user_id, a.day_key, n.post_number,
    a.activity_date + to_seconds(floor(rnd2('post_time', a.day_key, n.post_number) * 86399)::BIGINT) AS created_at,
    ${weightedPickSql("rnd2('post_type', a.day_key, n.post_number)", [
      ['text', 0.34],
      ['image', 0.34],
      ['video', 0.16],
      ['link', 0.1],
      ['poll', 0.06],
    ])} AS content_type
  FROM (
    SELECT a.user_id, a.activity_date, a.user_id * ${ACTIVITY_DAYS} + (a.activity_date - u.signed_up_at::DATE) AS day_key
    FROM main.user_daily_activity a JOIN main.users u ON u.user_id = a.user_id
  ) a,
  LATERAL (SELECT unnest(range(CASE WHEN rnd('post_today', a.day_key) < 0.16 THEN 1 + floor(rnd('post_many', a.day_key) * 1.4)::INTEGER ELSE 0 END)) AS post_number) n
)
ORDER BY post_id;

INSERT INTO main.interactions
SELECT row_number() OVER (ORDER BY created_at, post_id, interaction_number) AS interaction_id, post_id, user_id, interaction_type, created_at
FROM (
  SELECT p.post_id, i.interaction_number,
    1 + floor(rnd2('interaction_user', p.post_id, i.interaction_number) * (SELECT max(user_id) FROM main.users))::BIGINT AS user_id,
    ${weightedPickSql("rnd2('interaction_type', p.post_id, i.interaction_number)", [
      ['like', 0.72],
      ['comment', 0.18],
      ['share', 0.1],
    ])} AS interaction_type,
    p.created_at + to_seconds(floor(-ln(1 - rnd2('interaction_delay', p.post_id, i.interaction_number)) * 6 * 3600)::BIGINT) AS created_at
  FROM (SELECT *, ${meanInteractions} AS mean_interactions FROM main.posts) p,
  LATERAL (SELECT unnest(range(floor(-ln(1 - rnd('post_reach', p.post_id)) * p.mean_interactions)::INTEGER)) AS interaction_number) i
)
ORDER BY interaction_id;
`;
}

const patterns: PlantedPatternSpec[] = [
  {
    id: 'social-tiktok-ads-retention-drop',
    area: 'retention',
    title: 'Users from TikTok ads retain far worse',
    description:
      'Users who signed up through tiktok_ads are active in their fifth week (days 28-34) at well under half the rate of users from every other sign-up channel.',
    keywords: ['tiktok', 'signup channel', 'retention', 'week', 'churn'],
    tables: ['main.users', 'main.user_daily_activity'],
    check: {
      sql: `WITH week5 AS (
  SELECT u.user_id, u.signup_channel,
    EXISTS (SELECT 1 FROM main.user_daily_activity a WHERE a.user_id = u.user_id
            AND a.activity_date BETWEEN u.signed_up_at::DATE + 28 AND u.signed_up_at::DATE + 34) AS retained_week5
  FROM main.users u
), rates AS (
  SELECT avg(retained_week5::INTEGER) FILTER (WHERE signup_channel = '${LOW_RETENTION_CHANNEL}') AS tiktok_ads_week5_retention,
         avg(retained_week5::INTEGER) FILTER (WHERE signup_channel <> '${LOW_RETENTION_CHANNEL}') AS other_channels_week5_retention
  FROM week5
)
SELECT tiktok_ads_week5_retention / other_channels_week5_retention AS value, * FROM rates`,
      expect: { op: '<', value: 0.5 },
    },
  },
  {
    id: 'social-video-engagement-skew',
    area: 'engagement',
    title: 'Video posts draw several times the engagement of text posts',
    description:
      'A video post receives on average about five times as many likes, comments and shares as a text post; link posts draw the least.',
    keywords: ['video', 'content type', 'engagement', 'interactions', 'text'],
    tables: ['main.posts', 'main.interactions'],
    check: {
      sql: `WITH per_post AS (
  SELECT p.post_id, p.content_type, count(i.interaction_id) AS interaction_count
  FROM main.posts p LEFT JOIN main.interactions i ON i.post_id = p.post_id
  GROUP BY p.post_id, p.content_type
), rates AS (
  SELECT avg(interaction_count) FILTER (WHERE content_type = 'video') AS video_interactions_per_post,
         avg(interaction_count) FILTER (WHERE content_type = 'text') AS text_interactions_per_post
  FROM per_post
)
SELECT video_interactions_per_post / text_interactions_per_post AS value, * FROM rates`,
      expect: { op: '>', value: 3 },
    },
  },
  {
    id: 'social-referral-campaign-signup-spike',
    area: 'growth',
    title: 'Sign-ups tripled in the "Invite 3 Friends" referral campaign week',
    description: `In the week of ${SURGE_CAMPAIGN.startsOn}, when the "${SURGE_CAMPAIGN.name}" referral campaign ran, weekly sign-ups reached about three times the usual level, almost all of the extra through referrals.`,
    keywords: ['referral', 'campaign', 'signup', 'spike', 'growth', 'week'],
    tables: ['main.users', 'main.referral_campaigns'],
    check: {
      sql: `WITH weekly AS (
  SELECT date_trunc('week', signed_up_at)::DATE AS signup_week, count(*) AS signups,
    count(*) FILTER (WHERE signup_channel = 'referral') AS referral_signups
  FROM main.users GROUP BY ALL
), campaign_week AS (
  SELECT w.signups, w.referral_signups FROM weekly w
  JOIN main.referral_campaigns c ON c.campaign_name = '${SURGE_CAMPAIGN.name}' AND w.signup_week = date_trunc('week', c.starts_on)::DATE
)
SELECT cw.signups / (SELECT median(signups) FROM weekly) AS value,
  cw.signups AS campaign_week_signups, cw.referral_signups AS campaign_week_referral_signups,
  (SELECT median(signups) FROM weekly) AS median_weekly_signups
FROM campaign_week cw`,
      expect: { op: '>', value: 2.5 },
    },
  },
];

export const socialDataset: DemoDataset = {
  kind: 'social',
  buildSql({ scale }) {
    return [
      schemaSql(),
      usersSql(scaledCount(STEADY_USERS_AT_SCALE_1, scale, 500), scaledCount(CAMPAIGN_SURGE_USERS_AT_SCALE_1, scale, 50)),
      activitySql(),
      postsSql(),
    ];
  },
  patterns,
};
