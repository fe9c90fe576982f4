/**
 * `assay api-key create|list|revoke`: the operator's key management, straight on the run store.
 * The key is printed once at creation; only its hash is stored. With the embedded store the API
 * must not be running (one process per store): create the first admin key before `assay api`, and
 * later keys through `POST /api/v1/api-keys`, or use a shared store.
 */
import type { Command } from 'commander';
import { API_KEY_SCOPES, type ApiKeyScope, isApiKeyScope } from '../../domain/api-key-scope.js';
import { ValidationError } from '../../errors/index.js';
import type { RunStore } from '../../store/port.js';
import { printJson, renderTable } from '../output.js';

function scopeOption(value: string): ApiKeyScope {
  if (isApiKeyScope(value)) return value;
  throw new ValidationError(`--scope must be one of ${API_KEY_SCOPES.join(', ')}, got "${value}"`, [
    { path: '--scope', message: 'unknown scope' },
  ]);
}

async function withStore<T>(command: Command, work: (store: RunStore) => Promise<T>): Promise<T> {
  const [{ cliConfig }, { openRunStore }] = await Promise.all([import('../context.js'), import('../../store/index.js')]);
  const config = cliConfig(command);
  const store = await openRunStore(config.store, { dataDir: config.dataDir });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The key functions, loaded by the action that runs (they pull in the domain schemas). */
const loadKeys = () => import('../../api/auth/keys.js');

export function register(program: Command): void {
  const keys = program
    .command('api-key')
    .description('create, list and revoke API keys (scopes: read < run < admin)')
    .addHelpText(
      'after',
      '\nExamples:\n  assay api-key create --name ops --scope admin\n  assay api-key create --name shop-dashboard --scope read --project shop-1a2b3c --json\n  assay api-key list\n  assay api-key revoke k3x9…',
    );

  keys
    .command('create')
    .description('create a key and print it once (only its hash is stored)')
    .requiredOption('--name <name>', 'who or what uses the key')
    .requiredOption('--scope <scope>', 'read | run | admin', scopeOption)
    .option('--project <id>', 'bind the key to one project: it sees nothing else')
    .option('--json', 'print {"id","name","scope","key"} as JSON')
    .action(async (options: { name: string; scope: ApiKeyScope; project?: string; json?: boolean }, command: Command) => {
      const { createApiKey } = await loadKeys();
      const created = await withStore(command, (store) =>
        createApiKey(store, { name: options.name, scope: options.scope, projectId: options.project }, new Date()),
      );
      if (options.json) {
        printJson({
          id: created.record.id,
          name: created.record.name,
          scope: created.record.scope,
          ...(created.record.project_id ? { project_id: created.record.project_id } : {}),
          key: created.key,
        });
        return;
      }
      process.stdout.write(
        `${created.key}\n\nkey ${created.record.id} (${created.record.scope}${created.record.project_id ? `, project ${created.record.project_id}` : ''}) created.\nThis is the only time the key is shown: store it now. Send it as "Authorization: Bearer <key>".\n`,
      );
    });

  keys
    .command('list')
    .description('list keys (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { publicKeyView } = await loadKeys();
      const listed = await withStore(command, (store) => store.listApiKeys());
      const views = listed.map(publicKeyView);
      if (options.json) {
        printJson({ api_keys: views });
        return;
      }
      if (views.length === 0) {
        process.stdout.write('no API keys yet: create one with `assay api-key create --name NAME --scope admin`\n');
        return;
      }
      process.stdout.write(
        `${renderTable(
          ['id', 'name', 'scope', 'project', 'created', 'revoked'],
          views.map((key) => [key.id, key.name, key.scope, key.project_id ?? '(all)', key.created_at, key.revoked_at ?? '']),
        )}\n`,
      );
    });

  keys
    .command('revoke <id>')
    .description('revoke a key: it stops working at once (its record stays, marked revoked)')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { revokeApiKey } = await loadKeys();
      const revoked = await withStore(command, (store) => revokeApiKey(store, id, new Date()));
      process.stdout.write(`key ${revoked.id} revoked at ${revoked.revoked_at}\n`);
    });
}
