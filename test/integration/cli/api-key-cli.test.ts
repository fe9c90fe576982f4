/** `assay api-key create|list|revoke` on the embedded store: the key is printed once, only its hash is stored, revocation sticks. */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticateKey } from '../../../src/api/auth/keys.js';
import { ERROR_MAPPING } from '../../../src/errors/index.js';
import { createEmbeddedRunStore } from '../../../src/store/embedded.js';
import { runCli } from '../../support/run-cli.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('assay api-key', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'assay-keys-cli-'));
    vi.stubEnv('ASSAY_DATA_DIR', join(dir, 'data'));
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a key shown once, lists it without secrets, and revokes it', async () => {
    const created = await runCli(['api-key', 'create', '--name', 'ops', '--scope', 'admin', '--json']);
    expect(created.code).toBe(0);
    const printed = JSON.parse(created.stdout) as { id: string; name: string; scope: string; key: string };
    expect(printed).toMatchObject({ name: 'ops', scope: 'admin', key: expect.stringMatching(/^assay_[a-z0-9]{12}_/) });
    const secret = printed.key.slice('assay_'.length + 13);
    for (const file of filesUnder(join(dir, 'data'))) expect(readFileSync(file, 'utf8'), file).not.toContain(secret);

    const listed = await runCli(['api-key', 'list']);
    expect(listed.stdout).toContain(printed.id);
    expect(listed.stdout).not.toContain(secret);

    const store = createEmbeddedRunStore({ dir: join(dir, 'data', 'store') });
    expect(await authenticateKey(store, printed.key)).toMatchObject({ keyId: printed.id, scope: 'admin' });
    await store.close();

    expect((await runCli(['api-key', 'revoke', printed.id])).code).toBe(0);
    const reopened = createEmbeddedRunStore({ dir: join(dir, 'data', 'store') });
    expect(await authenticateKey(reopened, printed.key)).toBeNull();
    await reopened.close();
  });

  it('refuses an unknown scope and a missing project with the validation exit code', async () => {
    const scope = await runCli(['api-key', 'create', '--name', 'x', '--scope', 'root']);
    expect(scope.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(scope.stderr).toMatch(/--scope must be one of read, run, admin/);
    const project = await runCli(['api-key', 'create', '--name', 'x', '--scope', 'read', '--project', 'nope']);
    expect(project.code).toBe(ERROR_MAPPING.validation.exitCode);
    expect(project.stderr).toMatch(/project nope does not exist/);
  });
});
