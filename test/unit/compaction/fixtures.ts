/** Deterministic synthetic results shared by the golden tests: a seeded generator, no Math.random. */
import type { Row } from '../../../src/domain/index.js';
import type { ResultColumn } from '../../../src/compaction/compact-result.js';

/** A small linear congruential generator: the same seed always yields the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

const DEVICES = ['mobile', 'desktop', 'tablet'] as const;
const COUNTRIES = ['US', 'DE', 'FR', 'BR', 'IN', 'JP'] as const;

/** 2,000 sessions × 10 columns of mixed kinds, like a typical exploration query result. */
export function sessionsResult(rowCount = 2000): { columns: ResultColumn[]; rows: Row[] } {
  const random = seededRandom(42);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const columns: ResultColumn[] = [
    { name: 'session_id', type: 'VARCHAR' },
    { name: 'user_id', type: 'BIGINT' },
    { name: 'device', type: 'VARCHAR' },
    { name: 'country', type: 'VARCHAR' },
    { name: 'started_at', type: 'TIMESTAMP' },
    { name: 'duration_s', type: 'DOUBLE' },
    { name: 'orders', type: 'INTEGER' },
    { name: 'revenue', type: 'DECIMAL(12,2)' },
    { name: 'is_new', type: 'BOOLEAN' },
    { name: 'referrer', type: 'VARCHAR' },
  ];
  const rows = Array.from({ length: rowCount }, (_, index): Row => {
    const day = 1 + Math.floor(random() * 28);
    const orders = Math.floor(random() * random() * 8);
    return {
      session_id: `s-${(index * 2654435761) % 4294967296}`,
      user_id: 10_000 + Math.floor(random() * 5000),
      device: random() < 0.61 ? 'mobile' : pick(DEVICES.slice(1)),
      country: pick(COUNTRIES),
      started_at: `2024-03-${String(day).padStart(2, '0')} ${String(Math.floor(random() * 24)).padStart(2, '0')}:00:00`,
      duration_s: Math.round(random() * 360000) / 100,
      orders,
      revenue: orders === 0 ? '0.00' : (orders * (5 + random() * 60)).toFixed(2),
      is_new: random() < 0.3,
      referrer: random() < 0.4 ? null : `https://ref.example.com/campaign/${Math.floor(random() * 400)}`,
    };
  });
  return { columns, rows };
}

/** 30 rows × 250 columns where a third of the columns are mostly null. */
export function wideResult(): { columns: ResultColumn[]; rows: Row[] } {
  const random = seededRandom(7);
  const columns: ResultColumn[] = Array.from({ length: 250 }, (_, index) => ({
    name: `metric_${String(index).padStart(3, '0')}`,
    type: 'DOUBLE',
  }));
  const rows = Array.from(
    { length: 30 },
    (): Row =>
      Object.fromEntries(
        columns.map((column, index) => [column.name, index % 3 === 0 && random() < 0.9 ? null : Math.round(random() * 1000) / 10]),
      ),
  );
  return { columns, rows };
}

/** Airports with rough coordinates (degrees) and a weight for how busy they are. */
const AIRPORTS: ReadonlyArray<[code: string, latitude: number, longitude: number, weight: number]> = [
  ['ATL', 33.6, -84.4, 10],
  ['ORD', 42.0, -87.9, 9],
  ['DFW', 32.9, -97.0, 8],
  ['DEN', 39.9, -104.7, 7],
  ['LAX', 33.9, -118.4, 7],
  ['PHX', 33.4, -112.0, 6],
  ['LAS', 36.1, -115.2, 6],
  ['IAH', 30.0, -95.3, 5],
  ['SFO', 37.6, -122.4, 5],
  ['MSP', 44.9, -93.2, 4],
  ['DTW', 42.2, -83.4, 4],
  ['SEA', 47.4, -122.3, 4],
  ['MCO', 28.4, -81.3, 4],
  ['EWR', 40.7, -74.2, 4],
  ['BOS', 42.4, -71.0, 3],
  ['CLT', 35.2, -80.9, 3],
  ['SLC', 40.8, -111.9, 3],
  ['BWI', 39.2, -76.7, 3],
  ['SAN', 32.7, -117.2, 3],
  ['MDW', 41.8, -87.8, 2],
  ['OAK', 37.7, -122.2, 2],
  ['SMF', 38.7, -121.6, 2],
  ['SJC', 37.4, -121.9, 2],
  ['TPA', 28.0, -82.5, 2],
  ['HOU', 29.6, -95.3, 2],
  ['BNA', 36.1, -86.7, 2],
  ['AUS', 30.2, -97.7, 1],
  ['MCI', 39.3, -94.7, 1],
  ['PDX', 45.6, -122.6, 1],
  ['ABQ', 35.0, -106.6, 1],
];

/** Great-circle distance in statute miles, rounded: a route always has the same distance. */
function routeMiles(from: (typeof AIRPORTS)[number], to: (typeof AIRPORTS)[number]): number {
  const radians = Math.PI / 180;
  const [, lat1, lon1] = from;
  const [, lat2, lon2] = to;
  const a =
    Math.sin(((lat2 - lat1) * radians) / 2) ** 2 +
    Math.cos(lat1 * radians) * Math.cos(lat2 * radians) * Math.sin(((lon2 - lon1) * radians) / 2) ** 2;
  return Math.round(3958.8 * 2 * Math.asin(Math.sqrt(a)));
}

/**
 * A flight-delays table like the public ones (date, delay, distance, origin, destination): departures
 * over the first quarter of a year at minute resolution, ordered by date; delays in minutes, mostly a
 * few minutes early or late with a long tail of late flights; airports weighted by traffic. The same
 * seed gives the 2k and the 20k table the same distributions.
 */
export function flightsResult(rowCount: number, seed = 2001): { columns: ResultColumn[]; rows: Row[] } {
  const random = seededRandom(seed);
  const totalWeight = AIRPORTS.reduce((sum, airport) => sum + airport[3], 0);
  const pickAirport = (): (typeof AIRPORTS)[number] => {
    let target = random() * totalWeight;
    for (const airport of AIRPORTS) {
      target -= airport[3];
      if (target < 0) return airport;
    }
    return AIRPORTS[AIRPORTS.length - 1] as (typeof AIRPORTS)[number];
  };
  const delay = (): number => {
    const draw = random();
    if (draw < 0.55) return Math.floor(random() * 21) - 15;
    if (draw < 0.85) return 5 + Math.floor(random() * 55);
    if (draw < 0.97) return 60 + Math.floor(random() * 120);
    return 180 + Math.floor(random() * 420);
  };
  const quarterMinutes = 90 * 24 * 60;
  const start = Date.UTC(2001, 0, 1);
  const departures = Array.from({ length: rowCount }, () => Math.floor(random() * quarterMinutes)).sort((left, right) => left - right);
  const rows = departures.map((minute): Row => {
    const origin = pickAirport();
    let destination = pickAirport();
    while (destination === origin) destination = pickAirport();
    return {
      // As the warehouse adapters hand timestamps over: ISO-8601 in UTC with milliseconds.
      date: new Date(start + minute * 60_000).toISOString(),
      delay: delay(),
      distance: routeMiles(origin, destination),
      origin: origin[0],
      destination: destination[0],
    };
  });
  return {
    columns: [
      { name: 'date', type: 'TIMESTAMP' },
      { name: 'delay', type: 'INTEGER' },
      { name: 'distance', type: 'INTEGER' },
      { name: 'origin', type: 'VARCHAR' },
      { name: 'destination', type: 'VARCHAR' },
    ],
    rows,
  };
}
