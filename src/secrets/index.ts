/**
 * The secret-provider port and its two adapters. Projects hold credentials by reference
 * (`secret:NAME`); a job resolves the reference when it opens the project's clients, and the value
 * lives only in those clients: never in a document, a payload, a log or a report.
 *
 * - `env`: `secret:NAME` is the environment variable `ASSAY_SECRET_NAME` of the worker or API process
 *   (the prefix keeps a project from naming the process's own settings, such as REDIS_URL).
 * - `dir:/path`: NAME is a file in a mounted directory (a Kubernetes Secret volume); its content,
 *   trailing newline trimmed, is the value.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors/index.js';

export interface SecretProvider {
  /** What the provider is, for messages (`environment`, `directory /etc/assay-secrets`). */
  readonly description: string;
  /** The value of `secret:NAME`; a ConfigError naming the reference (never a value) when it is missing. */
  resolve(reference: string): string;
}

/** Environment variables holding project secrets start with this. */
export const ENV_PREFIX = 'ASSAY_SECRET_';
const REFERENCE = /^secret:([A-Za-z0-9_.-]{1,128})$/;

function nameOf(reference: string): string {
  const match = REFERENCE.exec(reference);
  const name = match?.[1];
  if (!name || name === '.' || name === '..') throw new ConfigError(`"${reference}" is not a secret reference (secret:NAME)`);
  return name;
}

export function createEnvSecretProvider(env: NodeJS.ProcessEnv = process.env): SecretProvider {
  return {
    description: 'environment',
    resolve(reference) {
      const variable = `${ENV_PREFIX}${nameOf(reference)}`;
      const value = env[variable];
      if (value === undefined || value === '')
        throw new ConfigError(`secret ${reference} is not set: define the environment variable ${variable}`);
      return value;
    },
  };
}

export function createDirectorySecretProvider(directory: string): SecretProvider {
  const root = path.resolve(directory);
  return {
    description: `directory ${root}`,
    resolve(reference) {
      const name = nameOf(reference);
      const file = path.join(root, name);
      if (!existsSync(file)) throw new ConfigError(`secret ${reference} is not set: no file ${name} in the secrets directory`);
      // Kubernetes mounts keys as symlinks into a ..data directory: follow them, but stay inside
      const real = realpathSync(file);
      const realRoot = realpathSync(root);
      const relative = path.relative(realRoot, real);
      if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
        throw new ConfigError(`secret ${reference} resolves outside the secrets directory`);
      }
      return readFileSync(real, 'utf8').replace(/\r?\n$/, '');
    },
  };
}

/** `env` (default) or `dir:/path`; config `secrets`, env `ASSAY_SECRETS`. */
export function createSecretProvider(spec: string, env: NodeJS.ProcessEnv = process.env): SecretProvider {
  if (spec === 'env') return createEnvSecretProvider(env);
  if (spec.startsWith('dir:') && spec.length > 'dir:'.length) return createDirectorySecretProvider(spec.slice('dir:'.length));
  throw new ConfigError(`secrets "${spec}": expected "env" or "dir:/path/to/mounted/secrets" (ASSAY_SECRETS)`);
}
