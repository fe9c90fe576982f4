import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import { ENV_BINDINGS, configSchema, type AssayConfig } from './schema.js';

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Explicit config file; else `ASSAY_CONFIG`, else `assay.config.json|yaml|yml` in `cwd`. */
  file?: string;
  cwd?: string;
  /** Highest-precedence values (CLI flags). */
  overrides?: Record<string, unknown>;
}

const DEFAULT_FILES = ['assay.config.json', 'assay.config.yaml', 'assay.config.yml'];

function findConfigFile(options: LoadConfigOptions): string | undefined {
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.file ?? options.env?.ASSAY_CONFIG;
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new ConfigError(`config file ${path} does not exist (from ${options.file ? '--config' : 'ASSAY_CONFIG'})`);
    return path;
  }
  return DEFAULT_FILES.map((name) => resolve(cwd, name)).find((path) => existsSync(path));
}

function readConfigFile(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8');
  try {
    const parsed: unknown = path.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('top level must be an object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
}

/** The object shape under defaults and optionals, or undefined for a leaf or a free-form record. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  return current instanceof z.ZodObject ? (current.shape as Record<string, z.ZodType>) : undefined;
}

/** Edit distance, for "did you mean" on a mistyped key. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (left[i - 1] === right[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[right.length]!;
}

/**
 * Keys of a config file that no setting has: a typo (`warehous:`) would otherwise be ignored
 * silently and the default used instead. Each comes with the closest real key when one is close.
 */
export function unknownConfigKeys(value: unknown, schema: z.ZodType = configSchema, path: string[] = []): string[] {
  const shape = objectShape(schema);
  if (!shape || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const known = Object.keys(shape);
  return Object.entries(value).flatMap(([key, child]) => {
    const field = shape[key];
    if (field) return unknownConfigKeys(child, field, [...path, key]);
    const closest = known
      .map((name) => ({ name, distance: editDistance(key.toLowerCase(), name.toLowerCase()) }))
      .sort((left, right) => left.distance - right.distance)[0];
    const hint =
      closest && closest.distance <= Math.max(2, Math.floor(key.length / 3))
        ? ` (did you mean "${[...path, closest.name].join('.')}"?)`
        : '';
    return [`"${[...path, key].join('.')}" is not a setting${hint}`];
  });
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function envValue(binding: (typeof ENV_BINDINGS)[number], raw: string): unknown {
  switch (binding.kind) {
    case 'string':
      return raw;
    case 'int': {
      if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${binding.env} must be a whole number, got "${raw}"`);
      return Number.parseInt(raw, 10);
    }
    case 'bool': {
      const normalised = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(normalised)) return false;
      throw new ConfigError(`${binding.env} must be true or false, got "${raw}"`);
    }
    case 'json':
      try {
        return JSON.parse(raw);
      } catch {
        throw new ConfigError(`${binding.env} must be JSON, got a value that does not parse`);
      }
  }
}

function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const existing = out[key];
    out[key] =
      value && typeof value === 'object' && !Array.isArray(value) && existing && typeof existing === 'object' && !Array.isArray(existing)
        ? deepMerge(existing as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** Parse configuration once: defaults < config file < environment < overrides. Throws ConfigError naming the setting. */
export function loadConfig(options: LoadConfigOptions = {}): AssayConfig {
  const env = options.env ?? process.env;
  const file = findConfigFile({ ...options, env });
  let raw: Record<string, unknown> = file ? readConfigFile(file) : {};
  const unknown = unknownConfigKeys(raw);
  if (file && unknown.length > 0) {
    throw new ConfigError(
      `config file ${file}: ${unknown.join('; ')}. The settings are listed in src/config/schema.ts (README, "Configuration")`,
    );
  }
  const fromEnv: Record<string, unknown> = {};
  for (const binding of ENV_BINDINGS) {
    const value = env[binding.env];
    if (value === undefined || value === '') continue;
    setPath(fromEnv, binding.path, envValue(binding, value));
  }
  raw = deepMerge(deepMerge(raw, fromEnv), options.overrides ?? {});
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const path = issue.path.map(String);
      const binding = ENV_BINDINGS.find((b) => b.path.join('.') === path.join('.'));
      const where = binding && env[binding.env] !== undefined ? `${binding.env} (${path.join('.')})` : path.join('.') || '(root)';
      return `${where}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration${file ? ` (file ${file})` : ''}: ${lines.join('; ')}`);
  }
  if (result.data.run.minSteps > result.data.run.maxSteps) {
    throw new ConfigError(`run.minSteps (${result.data.run.minSteps}) must not exceed run.maxSteps (${result.data.run.maxSteps})`);
  }
  return result.data;
}

/** Redact credentials in a URL-ish string: `postgres://user:secret@host/db` → `postgres://user:***@host/db`. */
export function redactUrl(value: string): string {
  return value.replace(/(\/\/[^/:@]+:)[^@/]+@/, '$1***@').replace(/([?&](?:password|apikey|api_key|key|token)=)[^&]+/gi, '$1***');
}

/** A printable copy of the config with every secret masked. */
export function describeConfig(config: AssayConfig): Record<string, unknown> {
  const masked: Record<string, unknown> = JSON.parse(JSON.stringify(config));
  for (const key of ['anthropicApiKey', 'openaiApiKey'] as const) if (masked[key]) masked[key] = '***';
  for (const key of ['warehouse', 'vectorIndex', 'store', 'redisUrl'] as const) masked[key] = redactUrl(String(masked[key]));
  return masked;
}
