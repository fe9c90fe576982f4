/**
 * E-commerce demo warehouse: an online shop's year (2024) of customers, sessions, orders, items,
 * refunds, promotions and marketing channels, with five planted patterns (see `patterns`).
 */
import { scaledCount, type DemoDataset } from '../demo-dataset.js';
import type { PlantedPatternSpec } from '../planted-pattern.js';
import { sqlList, sqlLiteral, uniformPickSql, weightedPickSql } from '../random-sql.js';

/** Entity counts at scale 1: small enough to build in a few seconds on 2 cores. */
const CUSTOMERS_AT_SCALE_1 = 5_000;
const ANONYMOUS_SESSIONS_AT_SCALE_1 = 4_000;
/** The catalogue does not grow with scale: a shop's range is independent of its traffic. */
const PRODUCT_COUNT = 200;

/** Channel ids as inserted into `marketing_channels`. */
const CHANNEL = { paidSocial: 1, organicSearch: 2, paidSearch: 3, email: 4, affiliate: 5, referral: 6, direct: 7 } as const;
/** Promotion ids as inserted into `promotions`. */
const PROMOTION = { welcome: 1, freeShipping: 2, springVip: 3, summer: 4, blackFriday: 5 } as const;

/** Paid Social brings the most customers but they come back rarely (planted pattern 4). */
const ACQUISITION_CHANNEL_WEIGHTS = [
  [CHANNEL.paidSocial, 0.32],
  [CHANNEL.organicSearch, 0.2],
  [CHANNEL.paidSearch, 0.16],
  [CHANNEL.email, 0.1],
  [CHANNEL.affiliate, 0.08],
  [CHANNEL.referral, 0.08],
  [CHANNEL.direct, 0.06],
] as const;

const REGION_WEIGHTS = [
  ['Northeast', 0.22],
  ['Southeast', 0.22],
  ['Midwest', 0.2],
  ['Southwest', 0.14],
  ['West', 0.22],
] as const;

/** Product categories with their item nouns and list-price range in USD. */
const CATEGORIES = [
  {
    name: 'Electronics',
    nouns: ['Wireless Earbuds', 'USB-C Charger', 'Smart Speaker', 'Action Camera', 'Mechanical Keyboard'],
    minPrice: 25,
    maxPrice: 350,
  },
  {
    name: 'Home & Kitchen',
    nouns: ['Chef Knife', 'Pour-Over Kettle', 'Linen Duvet', 'Cast Iron Skillet', 'Storage Set'],
    minPrice: 12,
    maxPrice: 160,
  },
  { name: 'Apparel', nouns: ['Rain Jacket', 'Merino Sweater', 'Chino Pants', 'Running Tee', 'Wool Socks'], minPrice: 12, maxPrice: 140 },
  { name: 'Beauty', nouns: ['Face Serum', 'Hair Oil', 'Body Lotion', 'Lip Balm Set', 'Clay Mask'], minPrice: 6, maxPrice: 60 },
  {
    name: 'Sports & Outdoors',
    nouns: ['Yoga Mat', 'Trail Backpack', 'Water Bottle', 'Resistance Bands', 'Camping Lantern'],
    minPrice: 15,
    maxPrice: 180,
  },
  { name: 'Toys & Games', nouns: ['Puzzle 1000pc', 'Building Blocks', 'Board Game', 'Plush Bear', 'Card Game'], minPrice: 8, maxPrice: 80 },
  { name: 'Books', nouns: ['Cookbook', 'Travel Guide', 'Novel', 'Field Journal', 'Kids Atlas'], minPrice: 8, maxPrice: 45 },
  { name: 'Grocery', nouns: ['Single-Origin Coffee', 'Matcha Tin', 'Olive Oil', 'Hot Sauce Trio', 'Granola'], minPrice: 4, maxPrice: 35 },
] as const;

/** The category whose refund rate climbs every month of the year (planted pattern 3). */
const RISING_REFUND_CATEGORY = 'Electronics';
const BRANDS = ['Northwind', 'Acme', 'Lumen', 'Fjord', 'Kestrel', 'Orchard', 'Tidewell', 'Parcel & Pine'];
const ADJECTIVES = ['Classic', 'Pro', 'Everyday', 'Compact', 'Deluxe', 'Eco', 'Ultra', 'Essential'];

function schemaSql(): string {
  return `
CREATE TABLE main.marketing_channels (
  channel_id BIGINT PRIMARY KEY, channel_name VARCHAR NOT NULL, channel_type VARCHAR NOT NULL,
  cost_model VARCHAR, launched_on DATE NOT NULL, is_active BOOLEAN NOT NULL);
INSERT INTO main.marketing_channels VALUES
  (${CHANNEL.paidSocial}, 'Paid Social', 'paid', 'CPM', DATE '2021-03-01', TRUE),
  (${CHANNEL.organicSearch}, 'Organic Search', 'earned', NULL, DATE '2019-06-01', TRUE),
  (${CHANNEL.paidSearch}, 'Paid Search', 'paid', 'CPC', DATE '2019-06-01', TRUE),
  (${CHANNEL.email}, 'Email', 'owned', NULL, DATE '2019-06-01', TRUE),
  (${CHANNEL.affiliate}, 'Affiliate', 'paid', 'CPA', DATE '2022-02-01', TRUE),
  (${CHANNEL.referral}, 'Referral', 'earned', NULL, DATE '2020-09-01', TRUE),
  (${CHANNEL.direct}, 'Direct', 'earned', NULL, DATE '2019-06-01', TRUE);

CREATE TABLE main.marketing_spend (
  channel_id BIGINT NOT NULL, spend_month DATE NOT NULL, spend_usd DECIMAL(12,2) NOT NULL,
  impressions BIGINT NOT NULL, clicks BIGINT NOT NULL, PRIMARY KEY (channel_id, spend_month));

CREATE TABLE main.promotions (
  promotion_id BIGINT PRIMARY KEY, promotion_code VARCHAR NOT NULL, promotion_name VARCHAR NOT NULL,
  discount_type VARCHAR NOT NULL, discount_value DECIMAL(8,2), starts_on DATE NOT NULL, ends_on DATE,
  channel_id BIGINT NOT NULL);
INSERT INTO main.promotions VALUES
  (${PROMOTION.welcome}, 'WELCOME10', 'Welcome 10% off first order', 'percent', 10.00, DATE '2023-01-01', NULL, ${CHANNEL.email}),
  (${PROMOTION.freeShipping}, 'FREESHIP', 'Free shipping, any basket', 'free_shipping', NULL, DATE '2024-01-01', DATE '2024-12-31', ${CHANNEL.paidSearch}),
  (${PROMOTION.springVip}, 'SPRINGVIP25', 'Spring VIP launch: 25% off + VIP club', 'percent', 25.00, DATE '2024-03-01', DATE '2024-04-30', ${CHANNEL.email}),
  (${PROMOTION.summer}, 'SUMMER15', 'Summer sale 15% off', 'percent', 15.00, DATE '2024-06-01', DATE '2024-08-31', ${CHANNEL.paidSocial}),
  (${PROMOTION.blackFriday}, 'BFCM30', 'Black Friday / Cyber Monday 30% off', 'percent', 30.00, DATE '2024-11-25', DATE '2024-12-02', ${CHANNEL.paidSocial});

CREATE TABLE main.products (
  product_id BIGINT PRIMARY KEY, sku VARCHAR NOT NULL, product_name VARCHAR NOT NULL, category VARCHAR NOT NULL,
  subcategory VARCHAR NOT NULL, brand VARCHAR NOT NULL, list_price DECIMAL(10,2) NOT NULL, unit_cost DECIMAL(10,2) NOT NULL,
  weight_kg DECIMAL(6,2), launched_on DATE NOT NULL, is_active BOOLEAN NOT NULL);

CREATE TABLE main.customers (
  customer_id BIGINT PRIMARY KEY, email VARCHAR NOT NULL, signup_at TIMESTAMP NOT NULL, region VARCHAR NOT NULL,
  country VARCHAR NOT NULL, acquisition_channel_id BIGINT NOT NULL, acquisition_promotion_id BIGINT,
  birth_year INTEGER, marketing_opt_in BOOLEAN NOT NULL, loyalty_tier VARCHAR NOT NULL);

CREATE TABLE main.sessions (
  session_id BIGINT PRIMARY KEY, customer_id BIGINT, started_at TIMESTAMP NOT NULL, duration_seconds INTEGER NOT NULL,
  device_type VARCHAR NOT NULL, browser VARCHAR, traffic_channel_id BIGINT NOT NULL, landing_page VARCHAR NOT NULL,
  pageviews INTEGER NOT NULL, added_to_cart BOOLEAN NOT NULL, reached_checkout BOOLEAN NOT NULL);

CREATE TABLE main.orders (
  order_id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, session_id BIGINT NOT NULL, ordered_at TIMESTAMP NOT NULL,
  order_status VARCHAR NOT NULL, device_type VARCHAR NOT NULL, shipping_region VARCHAR NOT NULL, promotion_id BIGINT,
  payment_method VARCHAR, subtotal DECIMAL(12,2) NOT NULL, discount_amount DECIMAL(12,2) NOT NULL,
  shipping_amount DECIMAL(12,2) NOT NULL, total_amount DECIMAL(12,2) NOT NULL, shipped_at TIMESTAMP, delivered_at TIMESTAMP);

CREATE TABLE main.order_items (
  order_item_id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, product_id BIGINT NOT NULL, quantity INTEGER NOT NULL,
  unit_price DECIMAL(10,2) NOT NULL, line_total DECIMAL(12,2) NOT NULL);

CREATE TABLE main.refunds (
  refund_id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, order_item_id BIGINT NOT NULL, refunded_at TIMESTAMP NOT NULL,
  refund_amount DECIMAL(12,2) NOT NULL, reason VARCHAR NOT NULL, refund_method VARCHAR NOT NULL);
`;
}

function productsSql(): string {
  const categoryRows = CATEGORIES.map(
    (category, index) => `(${index}, ${sqlLiteral(category.name)}, ${sqlList(category.nouns)}, ${category.minPrice}, ${category.maxPrice})`,
  );
  return `
CREATE TEMP TABLE ref_categories (category_index INTEGER, category VARCHAR, nouns VARCHAR[], min_price DOUBLE, max_price DOUBLE);
INSERT INTO ref_categories VALUES ${categoryRows.join(',\n  ')};
INSERT INTO main.products
SELECT
  i + 1 AS product_id,
  printf('SKU-%05d', i + 1) AS sku,
  brand || ' ' || adjective || ' ' || noun AS product_name,
  c.category,
  noun AS subcategory,
  brand,
  list_price,
  round(list_price * (0.35 + 0.3 * rnd('product_margin', i)), 2)::DECIMAL(10,2) AS unit_cost,
  CASE WHEN rnd('product_weight_null', i) < 0.08 THEN NULL ELSE round(0.1 + 4.9 * rnd('product_weight', i), 2) END::DECIMAL(6,2) AS weight_kg,
  DATE '2021-01-01' + floor(rnd('product_launch', i) * 1300)::INTEGER AS launched_on,
  rnd('product_active', i) < 0.94 AS is_active
FROM (
  SELECT i,
    ${uniformPickSql("rnd('product_brand', i)", BRANDS)} AS brand,
    ${uniformPickSql("rnd('product_adjective', i)", ADJECTIVES)} AS adjective,
    (i % ${CATEGORIES.length})::INTEGER AS category_index,
    rnd('product_noun', i) AS u_noun,
    rnd('product_price', i) AS u_price
  FROM range(${PRODUCT_COUNT}) t(i)
) p
JOIN ref_categories c USING (category_index),
LATERAL (SELECT
  list_element(c.nouns, 1 + floor(p.u_noun * len(c.nouns))::INTEGER) AS noun,
  (round(c.min_price + (c.max_price - c.min_price) * p.u_price * p.u_price, 0) - 0.01)::DECIMAL(10,2) AS list_price)
ORDER BY product_id;
`;
}

function customersSql(customerCount: number): string {
  return `
CREATE TEMP TABLE stg_customers AS
SELECT *,
  -- Paid Social customers browse a couple of times and rarely return (pattern 4); the SPRINGVIP25
  -- cohort gets six extra visits in its first 90 days (pattern 2).
  (CASE WHEN acquisition_channel_id = ${CHANNEL.paidSocial} THEN 1 + floor(rnd('customer_visits', customer_id) * 2)
        ELSE 3 + floor(rnd('customer_visits', customer_id) * 11) END
   + CASE WHEN acquisition_promotion_id = ${PROMOTION.springVip} THEN 6 ELSE 0 END)::INTEGER AS visit_count
FROM (
  SELECT customer_id, signup_at,
    ${weightedPickSql("rnd('customer_channel', customer_id)", ACQUISITION_CHANNEL_WEIGHTS)} AS acquisition_channel_id,
    ${weightedPickSql("rnd('customer_region', customer_id)", REGION_WEIGHTS)} AS region,
    CASE
      WHEN signup_at >= TIMESTAMP '2024-03-01' AND signup_at < TIMESTAMP '2024-05-01' AND u_promo < 0.40 THEN ${PROMOTION.springVip}
      WHEN signup_at >= TIMESTAMP '2024-06-01' AND signup_at < TIMESTAMP '2024-09-01' AND u_promo < 0.20 THEN ${PROMOTION.summer}
      WHEN u_promo > 0.88 THEN ${PROMOTION.welcome}
    END AS acquisition_promotion_id
  FROM (
    SELECT i + 1 AS customer_id,
      TIMESTAMP '2024-01-01' + to_seconds(floor(rnd('customer_signup', i + 1) * 274 * 86400)::BIGINT) AS signup_at,
      rnd('customer_promo', i + 1) AS u_promo
    FROM range(${customerCount}) t(i)
  )
);

INSERT INTO main.customers
SELECT customer_id,
  'customer' || customer_id || '@example.com' AS email,
  signup_at, region, 'US' AS country, acquisition_channel_id, acquisition_promotion_id,
  CASE WHEN rnd('customer_birth_null', customer_id) < 0.18 THEN NULL ELSE 1950 + floor(rnd('customer_birth', customer_id) * 56)::INTEGER END AS birth_year,
  rnd('customer_opt_in', customer_id) < 0.58 AS marketing_opt_in,
  ${weightedPickSql("rnd('customer_tier', customer_id)", [
    ['bronze', 0.7],
    ['silver', 0.22],
    ['gold', 0.08],
  ])} AS loyalty_tier
FROM stg_customers
ORDER BY customer_id;
`;
}

function sessionsSql(anonymousSessionCount: number): string {
  const device = weightedPickSql("rnd2('session_device', customer_key, visit_index)", [
    ['mobile', 0.5],
    ['desktop', 0.38],
    ['tablet', 0.12],
  ]);
  const returningChannel = weightedPickSql("rnd2('session_channel', customer_key, visit_index)", [
    [CHANNEL.direct, 0.35],
    [CHANNEL.email, 0.25],
    [CHANNEL.organicSearch, 0.2],
    [CHANNEL.paidSearch, 0.1],
    [CHANNEL.paidSocial, 0.1],
  ]);
  const browser = weightedPickSql("rnd2('session_browser', customer_key, visit_index)", [
    ['Chrome', 0.55],
    ['Safari', 0.3],
    ['Edge', 0.07],
    ['Firefox', 0.05],
    [null, 0.03],
  ]);
  const landingPage = weightedPickSql("rnd2('session_landing', customer_key, visit_index)", [
    ['/', 0.3],
    ['/category', 0.25],
    ['/product', 0.3],
    ['/sale', 0.1],
    ['/blog', 0.05],
  ]);
  return `
CREATE TEMP TABLE stg_visits AS
SELECT c.customer_id, c.customer_id AS customer_key, v.visit_index, c.acquisition_channel_id,
  CASE
    WHEN v.visit_index = 0 THEN c.signup_at
    WHEN c.acquisition_promotion_id = ${PROMOTION.springVip} AND v.visit_index >= c.visit_count - 6
      THEN c.signup_at + to_seconds(floor(rnd2('visit_offset', c.customer_id, v.visit_index) * 88 * 86400)::BIGINT)
    ELSE c.signup_at + to_seconds(floor(pow(rnd2('visit_offset', c.customer_id, v.visit_index), 1.4)
           * date_diff('second', c.signup_at, TIMESTAMP '2024-12-31 22:00:00'))::BIGINT)
  END AS started_at
FROM stg_customers c, LATERAL (SELECT unnest(range(c.visit_count)) AS visit_index) v
UNION ALL
SELECT NULL, 0, i, NULL,
  TIMESTAMP '2024-01-01' + to_seconds(floor(rnd('anonymous_visit', i) * 365 * 86400)::BIGINT)
FROM range(${anonymousSessionCount}) t(i);

CREATE TEMP TABLE stg_sessions AS
SELECT *,
  -- Mobile shoppers reach checkout about as often as desktop shoppers but abandon it ~3x as often (pattern 1).
  reached_checkout AND rnd2('session_convert', customer_key, visit_index)
    < CASE device_type WHEN 'desktop' THEN 0.78 WHEN 'mobile' THEN 0.34 ELSE 0.60 END AS converted
FROM (
  SELECT *,
    added_to_cart AND rnd2('session_checkout', customer_key, visit_index)
      < CASE device_type WHEN 'desktop' THEN 0.90 WHEN 'mobile' THEN 0.82 ELSE 0.86 END AS reached_checkout
  FROM (
    SELECT row_number() OVER (ORDER BY started_at, customer_key, visit_index) AS session_id,
      customer_id, customer_key, visit_index, started_at,
      ${device} AS device_type,
      ${browser} AS browser,
      CASE WHEN visit_index = 0 AND customer_id IS NOT NULL THEN acquisition_channel_id ELSE ${returningChannel} END AS traffic_channel_id,
      ${landingPage} AS landing_page,
      -- anonymous visitors must sign in to use the cart
      customer_id IS NOT NULL AND rnd2('session_cart', customer_key, visit_index) < 0.80 AS added_to_cart,
      1 + floor(-ln(1 - rnd2('session_pages', customer_key, visit_index)) * 5)::INTEGER AS browse_pageviews
    FROM stg_visits
  )
);

INSERT INTO main.sessions
SELECT session_id, customer_id, started_at,
  (pageviews * 38 + floor(rnd2('session_duration', customer_key, visit_index) * 150))::INTEGER AS duration_seconds,
  device_type, browser, traffic_channel_id, landing_page, pageviews, added_to_cart, reached_checkout
FROM (SELECT *, browse_pageviews + CASE WHEN added_to_cart THEN 2 ELSE 0 END + CASE WHEN reached_checkout THEN 2 ELSE 0 END AS pageviews FROM stg_sessions)
ORDER BY session_id;
`;
}

function ordersSql(): string {
  const paymentMethod = weightedPickSql("rnd('order_payment', order_id)", [
    ['card', 0.6],
    ['paypal', 0.2],
    ['apple_pay', 0.12],
    ['gift_card', 0.08],
  ]);
  return `
CREATE TEMP TABLE stg_orders AS
SELECT row_number() OVER (ORDER BY s.started_at, s.session_id) AS order_id,
  s.session_id, s.customer_id, s.device_type, c.region, c.acquisition_promotion_id,
  s.started_at + to_seconds((60 + floor(rnd('order_delay', s.session_id) * 600))::BIGINT) AS ordered_at,
  row_number() OVER (PARTITION BY s.customer_id ORDER BY s.started_at, s.session_id) AS customer_order_number
FROM stg_sessions s JOIN stg_customers c ON c.customer_id = s.customer_id
WHERE s.converted;

INSERT INTO main.order_items
SELECT row_number() OVER (ORDER BY o.order_id, line.line_number) AS order_item_id,
  o.order_id, line.product_id, line.quantity, p.list_price AS unit_price,
  (line.quantity * p.list_price)::DECIMAL(12,2) AS line_total
FROM stg_orders o,
LATERAL (
  SELECT line_number,
    1 + floor(rnd2('item_product', o.order_id, line_number) * ${PRODUCT_COUNT})::BIGINT AS product_id,
    ${weightedPickSql("rnd2('item_quantity', o.order_id, line_number)", [
      [1, 0.8],
      [2, 0.15],
      [3, 0.05],
    ])}::INTEGER AS quantity
  -- larger baskets for the SPRINGVIP25 cohort (pattern 2)
  FROM (SELECT unnest(range(1 + floor(rnd('order_lines', o.order_id) * 3)::INTEGER
    + CASE WHEN o.acquisition_promotion_id = ${PROMOTION.springVip} THEN 1 ELSE 0 END)) AS line_number)
) line
JOIN main.products p ON p.product_id = line.product_id
ORDER BY order_item_id;

CREATE TEMP TABLE stg_order_totals AS
SELECT o.*, t.subtotal,
  CASE
    WHEN o.customer_order_number = 1 AND o.acquisition_promotion_id IS NOT NULL THEN o.acquisition_promotion_id
    WHEN o.ordered_at >= TIMESTAMP '2024-11-25' AND o.ordered_at < TIMESTAMP '2024-12-03' AND rnd('order_promo', o.order_id) < 0.6 THEN ${PROMOTION.blackFriday}
    WHEN o.ordered_at >= TIMESTAMP '2024-06-01' AND o.ordered_at < TIMESTAMP '2024-09-01' AND rnd('order_promo', o.order_id) < 0.25 THEN ${PROMOTION.summer}
    WHEN rnd('order_promo', o.order_id) < 0.05 THEN ${PROMOTION.freeShipping}
  END AS promotion_id,
  -- Southeast orders wait longer for delivery and are cancelled ~4x as often (pattern 5)
  rnd('order_cancel', o.order_id) < CASE WHEN o.region = 'Southeast' THEN 0.15 ELSE 0.035 END AS is_cancelled,
  CASE WHEN o.region = 'Southeast' THEN 5 + floor(rnd('order_transit', o.order_id) * 6) ELSE 2 + floor(rnd('order_transit', o.order_id) * 4) END::INTEGER AS transit_days
FROM stg_orders o
JOIN (SELECT order_id, sum(line_total) AS subtotal FROM main.order_items GROUP BY order_id) t USING (order_id);

INSERT INTO main.orders
SELECT order_id, customer_id, session_id, ordered_at,
  CASE WHEN is_cancelled THEN 'cancelled' WHEN ordered_at + to_days(transit_days) > TIMESTAMP '2024-12-31 23:59:59' THEN 'shipped' ELSE 'delivered' END AS order_status,
  device_type, region AS shipping_region, o.promotion_id,
  CASE WHEN is_cancelled AND rnd('order_payment_null', order_id) < 0.5 THEN NULL ELSE ${paymentMethod} END AS payment_method,
  subtotal, discount_amount, shipping_amount, subtotal - discount_amount + shipping_amount AS total_amount,
  CASE WHEN is_cancelled THEN NULL ELSE ordered_at + to_hours(18 + floor(rnd('order_ship', order_id) * 30)::BIGINT) END AS shipped_at,
  CASE WHEN is_cancelled OR ordered_at + to_days(transit_days) > TIMESTAMP '2024-12-31 23:59:59' THEN NULL ELSE ordered_at + to_days(transit_days) END AS delivered_at
FROM (
  SELECT o.*,
    CASE WHEN p.discount_type = 'percent' THEN round(o.subtotal * p.discount_value / 100, 2) ELSE 0 END::DECIMAL(12,2) AS discount_amount,
    CASE WHEN p.discount_type = 'free_shipping' OR o.subtotal >= 75 THEN 0 ELSE 7.95 END::DECIMAL(12,2) AS shipping_amount
  FROM stg_order_totals o LEFT JOIN main.promotions p ON p.promotion_id = o.promotion_id
) o
ORDER BY order_id;
`;
}

function refundsSql(): string {
  const reason = `CASE WHEN p.category = '${RISING_REFUND_CATEGORY}' AND rnd('refund_reason', oi.order_item_id) < 0.6 THEN 'defective'
    ELSE ${uniformPickSql("rnd('refund_reason_other', oi.order_item_id)", ['damaged_in_transit', 'not_as_described', 'changed_mind', 'wrong_size', 'arrived_late'])} END`;
  return `
INSERT INTO main.refunds
SELECT row_number() OVER (ORDER BY refunded_at, order_item_id) AS refund_id, order_id, order_item_id, refunded_at, refund_amount, reason, refund_method
FROM (
  SELECT oi.order_id, oi.order_item_id,
    o.delivered_at + to_seconds(floor((1 + rnd('refund_delay', oi.order_item_id) * 24) * 86400)::BIGINT) AS refunded_at,
    CASE WHEN rnd('refund_partial', oi.order_item_id) < 0.12 THEN round(oi.line_total * 0.5, 2) ELSE oi.line_total END::DECIMAL(12,2) AS refund_amount,
    ${reason} AS reason,
    ${weightedPickSql("rnd('refund_method', oi.order_item_id)", [
      ['original_payment', 0.82],
      ['store_credit', 0.18],
    ])} AS refund_method
  FROM main.order_items oi
  JOIN main.orders o ON o.order_id = oi.order_id
  JOIN main.products p ON p.product_id = oi.product_id
  WHERE o.order_status = 'delivered'
    -- ${RISING_REFUND_CATEGORY} refunds climb ~2 points a month, from 2% in January to ~26% in December (pattern 3)
    AND rnd('refund', oi.order_item_id) < CASE WHEN p.category = '${RISING_REFUND_CATEGORY}'
      THEN 0.02 + 0.022 * (month(o.ordered_at) - 1) ELSE 0.035 END
);

INSERT INTO main.marketing_spend
SELECT c.channel_id, m.spend_month,
  round(CASE c.channel_id WHEN ${CHANNEL.paidSocial} THEN 42000 WHEN ${CHANNEL.paidSearch} THEN 26000 WHEN ${CHANNEL.affiliate} THEN 9000 ELSE 2500 END
        * (0.85 + 0.3 * rnd2('spend', c.channel_id, m.month_index)), 2)::DECIMAL(12,2) AS spend_usd,
  floor(CASE c.channel_id WHEN ${CHANNEL.paidSocial} THEN 5200000 WHEN ${CHANNEL.paidSearch} THEN 900000 WHEN ${CHANNEL.affiliate} THEN 400000 ELSE 150000 END
        * (0.8 + 0.4 * rnd2('impressions', c.channel_id, m.month_index)))::BIGINT AS impressions,
  floor(CASE c.channel_id WHEN ${CHANNEL.paidSocial} THEN 61000 WHEN ${CHANNEL.paidSearch} THEN 38000 WHEN ${CHANNEL.affiliate} THEN 9000 ELSE 6000 END
        * (0.8 + 0.4 * rnd2('clicks', c.channel_id, m.month_index)))::BIGINT AS clicks
FROM main.marketing_channels c,
  (SELECT month_index, (DATE '2024-01-01' + to_months(month_index::INTEGER))::DATE AS spend_month FROM range(12) t(month_index)) m
WHERE c.channel_type IN ('paid', 'owned')
ORDER BY c.channel_id, m.spend_month;
`;
}

const patterns: PlantedPatternSpec[] = [
  {
    id: 'ecommerce-mobile-checkout-abandonment',
    area: 'conversion',
    title: 'Mobile checkout abandonment is about 3x desktop',
    description:
      'Sessions that reach checkout on mobile end without an order about two thirds of the time, against about one in five on desktop; cart-to-order conversion shows the same gap.',
    keywords: ['mobile', 'checkout', 'abandon', 'desktop', 'device'],
    tables: ['main.sessions', 'main.orders'],
    check: {
      sql: `WITH checkout AS (
  SELECT s.device_type, o.order_id IS NULL AS abandoned
  FROM main.sessions s LEFT JOIN main.orders o ON o.session_id = s.session_id
  WHERE s.reached_checkout
), rates AS (
  SELECT avg(CASE WHEN device_type = 'mobile' THEN abandoned::INTEGER END) AS mobile_abandonment_rate,
         avg(CASE WHEN device_type = 'desktop' THEN abandoned::INTEGER END) AS desktop_abandonment_rate
  FROM checkout
)
SELECT mobile_abandonment_rate / desktop_abandonment_rate AS value, mobile_abandonment_rate, desktop_abandonment_rate FROM rates`,
      expect: { op: 'between', min: 2.3, max: 3.8 },
    },
  },
  {
    id: 'ecommerce-springvip-cohort-revenue',
    area: 'revenue',
    title: 'SPRINGVIP25 promotion cohort spends far more in its first 90 days',
    description:
      'Customers acquired with the SPRINGVIP25 promotion (March-April 2024) generate well over twice the 90-day revenue of other customers who signed up in the same months.',
    keywords: ['springvip25', 'promotion', 'cohort', 'revenue', '90-day'],
    tables: ['main.customers', 'main.orders', 'main.promotions'],
    check: {
      sql: `WITH spring_customers AS (
  SELECT c.customer_id, c.signup_at, coalesce(p.promotion_code = 'SPRINGVIP25', FALSE) AS is_springvip
  FROM main.customers c LEFT JOIN main.promotions p ON p.promotion_id = c.acquisition_promotion_id
  WHERE c.signup_at >= TIMESTAMP '2024-03-01' AND c.signup_at < TIMESTAMP '2024-05-01'
), revenue_90d AS (
  SELECT sc.customer_id, sc.is_springvip,
    coalesce(sum(o.total_amount) FILTER (WHERE o.order_status <> 'cancelled' AND o.ordered_at < sc.signup_at + INTERVAL 90 DAY), 0) AS revenue
  FROM spring_customers sc LEFT JOIN main.orders o ON o.customer_id = sc.customer_id
  GROUP BY sc.customer_id, sc.is_springvip
), cohorts AS (
  SELECT avg(revenue) FILTER (WHERE is_springvip)::DOUBLE AS springvip_revenue_90d,
         avg(revenue) FILTER (WHERE NOT is_springvip)::DOUBLE AS other_revenue_90d,
         count(*) FILTER (WHERE is_springvip) AS springvip_customers
  FROM revenue_90d
)
SELECT springvip_revenue_90d / other_revenue_90d AS value, springvip_revenue_90d, other_revenue_90d, springvip_customers FROM cohorts`,
      expect: { op: '>', value: 2 },
    },
  },
  {
    id: 'ecommerce-electronics-rising-refunds',
    area: 'revenue',
    title: 'Electronics refund rate rises month over month',
    description:
      'The share of delivered Electronics items that are refunded climbs every month of 2024, from about 3% in Q1 to over 20% in Q4, while other categories stay flat near 3.5%.',
    keywords: ['electronics', 'refund', 'rising', 'month', 'category'],
    tables: ['main.refunds', 'main.order_items', 'main.products', 'main.orders'],
    check: {
      sql: `WITH delivered_items AS (
  SELECT p.category, quarter(o.ordered_at) AS order_quarter, r.refund_id IS NOT NULL AS refunded
  FROM main.order_items oi
  JOIN main.orders o ON o.order_id = oi.order_id
  JOIN main.products p ON p.product_id = oi.product_id
  LEFT JOIN main.refunds r ON r.order_item_id = oi.order_item_id
  WHERE o.order_status = 'delivered'
), rates AS (
  SELECT avg(refunded::INTEGER) FILTER (WHERE category = 'Electronics' AND order_quarter = 1) AS electronics_q1_refund_rate,
         avg(refunded::INTEGER) FILTER (WHERE category = 'Electronics' AND order_quarter = 4) AS electronics_q4_refund_rate,
         avg(refunded::INTEGER) FILTER (WHERE category <> 'Electronics' AND order_quarter = 1) AS other_q1_refund_rate,
         avg(refunded::INTEGER) FILTER (WHERE category <> 'Electronics' AND order_quarter = 4) AS other_q4_refund_rate
  FROM delivered_items
)
SELECT electronics_q4_refund_rate / electronics_q1_refund_rate AS value, * FROM rates`,
      expect: { op: '>', value: 2.5 },
    },
  },
  {
    id: 'ecommerce-paid-social-poor-repeat',
    area: 'retention',
    title: 'Paid Social acquires the most customers but they rarely buy again',
    description:
      'Paid Social is the largest acquisition channel (about a third of customers), yet its buyers place a second order far less often than buyers from every other channel.',
    keywords: ['paid social', 'channel', 'repeat', 'acquisition', 'retention'],
    tables: ['main.customers', 'main.marketing_channels', 'main.orders'],
    check: {
      sql: `WITH buyers AS (
  SELECT c.customer_id, m.channel_name, count(o.order_id) AS order_count
  FROM main.customers c
  JOIN main.marketing_channels m ON m.channel_id = c.acquisition_channel_id
  JOIN main.orders o ON o.customer_id = c.customer_id AND o.order_status <> 'cancelled'
  GROUP BY c.customer_id, m.channel_name
), rates AS (
  SELECT avg((order_count >= 2)::INTEGER) FILTER (WHERE channel_name = 'Paid Social') AS paid_social_repeat_rate,
         avg((order_count >= 2)::INTEGER) FILTER (WHERE channel_name <> 'Paid Social') AS other_channels_repeat_rate,
         (SELECT avg((m.channel_name = 'Paid Social')::INTEGER) FROM main.customers c JOIN main.marketing_channels m ON m.channel_id = c.acquisition_channel_id) AS paid_social_customer_share
  FROM buyers
)
SELECT paid_social_repeat_rate / other_channels_repeat_rate AS value, * FROM rates`,
      expect: { op: '<', value: 0.5 },
    },
  },
  {
    id: 'ecommerce-southeast-cancellations',
    area: 'conversion',
    title: 'Southeast orders are cancelled about 4x as often',
    description:
      'Orders shipping to the Southeast region are cancelled at roughly 15% against about 3.5% elsewhere, and take noticeably longer to deliver.',
    keywords: ['southeast', 'region', 'cancel', 'delivery'],
    tables: ['main.orders'],
    check: {
      sql: `WITH rates AS (
  SELECT avg((order_status = 'cancelled')::INTEGER) FILTER (WHERE shipping_region = 'Southeast') AS southeast_cancellation_rate,
         avg((order_status = 'cancelled')::INTEGER) FILTER (WHERE shipping_region <> 'Southeast') AS other_regions_cancellation_rate
  FROM main.orders
)
SELECT southeast_cancellation_rate / other_regions_cancellation_rate AS value, * FROM rates`,
      expect: { op: '>', value: 2.5 },
    },
  },
];

export const ecommerceDataset: DemoDataset = {
  kind: 'ecommerce',
  buildSql({ scale }) {
    return [
      schemaSql(),
      productsSql(),
      customersSql(scaledCount(CUSTOMERS_AT_SCALE_1, scale, 200)),
      sessionsSql(scaledCount(ANONYMOUS_SESSIONS_AT_SCALE_1, scale, 50)),
      ordersSql(),
      refundsSql(),
    ];
  },
  patterns,
};
