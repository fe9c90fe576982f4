/**
 * Real OS processes of an Assay fleet, for benchmarks and end-to-end tests: the LLM simulator, the
 * API (`assay api`), workers (`assay worker`) and one-shot CLI commands (`assay api-key create`).
 * Each is `node --import tsx src/cli/main.ts …` started from the repository root, one OS process
 * (SIGKILL on its pid kills it), its stdout and stderr in a log file of its own.
 *
 * Every process started here is SIGKILLed when this Node process exits; a caller that may be
 * interrupted installs `onTerminationSignal(cleanup)` so SIGINT/SIGTERM run its async cleanup too.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ENV_BINDINGS } from '../../src/config/index.js';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
export const CLI_ENTRY = join(REPO_ROOT, 'src/cli/main.ts');
/** `--import tsx` resolves from the working directory: children start in the repository root. */
const NODE_ARGS = ['--import', 'tsx', CLI_ENTRY] as const;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface FleetProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Settles when the process has exited. */
  readonly exited: Promise<ProcessExit>;
  isRunning(): boolean;
  /** Sends `signal` (default SIGKILL) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<ProcessExit>;
  /** SIGTERM (the graceful shutdown of `assay api` and `assay worker`), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<ProcessExit>;
  /** Everything the process wrote so far (stdout and stderr, interleaved). */
  output(): string;
  /** The last `lines` lines of the output, for error messages. */
  outputTail(lines?: number): string;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** SIGKILLs every process started here that is still running (synchronous: safe in an `exit` hook). */
export function killAllFleetProcesses(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killAllFleetProcesses);
  }
}

/**
 * On SIGINT or SIGTERM: run `cleanup` (at most `timeoutMs`), SIGKILL whatever is left and exit with
 * 128 + the signal number. Returns the function that removes the handlers again.
 */
export function onTerminationSignal(cleanup: () => Promise<void>, timeoutMs = 20_000): () => void {
  const handler = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: stopping the fleet processes…\n`);
    const timer = new Promise<void>((done) => setTimeout(done, timeoutMs).unref());
    void Promise.race([cleanup().catch(() => undefined), timer]).finally(() => {
      killAllFleetProcesses();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.removeListener('SIGINT', handler);
    process.removeListener('SIGTERM', handler);
  };
}

let utsNamespaces: boolean | undefined;

/**
 * Whether a child can get a host name of its own (`unshare --uts`, needs root or CAP_SYS_ADMIN).
 * Workers name themselves after the host (`hostname()` in src/fleet/bullmq/workers/main.ts, BullMQ's `processedBy`),
 * so this is what tells which worker process holds a job.
 */
export function canIsolateHostname(): boolean {
  utsNamespaces ??=
    spawnSync('unshare', ['--uts', 'sh', '-c', 'hostname assay-probe && test "$(hostname)" = assay-probe'], { stdio: 'ignore' }).status ===
    0;
  return utsNamespaces;
}

export interface SpawnCliOptions {
  /** Names the process in errors and its log file (`<logDir>/<name>.log`). */
  name: string;
  /** The `assay` sub-command and its flags. */
  args: readonly string[];
  env: Record<string, string>;
  logDir: string;
  /** Run in a UTS namespace of its own with this host name; ignored where `canIsolateHostname()` is false. */
  hostname?: string;
  /** Flags for node itself, before the entry point (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: readonly string[];
  /**
   * Start through `bin/assay.js`, as an installed CLI starts: the build in dist/ when it is fresh, else
   * the sources through tsx. Default: the sources through tsx, always.
   */
  launcher?: boolean;
}

export function spawnCli(options: SpawnCliOptions): FleetProcess {
  mkdirSync(options.logDir, { recursive: true });
  const logPath = join(options.logDir, `${options.name}.log`);
  const fd = openSync(logPath, 'a');
  let command: string = process.execPath;
  const entry = options.launcher ? [join(REPO_ROOT, 'bin', 'assay.js')] : NODE_ARGS;
  let args: string[] = [...(options.nodeArgs ?? []), ...entry, ...options.args];
  if (options.hostname !== undefined && canIsolateHostname()) {
    // unshare and sh exec into node: the pid stays node's, so a signal to it reaches node itself
    args = ['--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', options.hostname, command, ...args];
    command = 'unshare';
  }
  let child: ChildProcess;
  try {
    child = spawn(command, args, { cwd: REPO_ROOT, env: options.env, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new Error(`could not start ${options.name} (${command})`);
  track(child);
  const pid = child.pid;
  let exit: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((done) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      done(exit);
    });
  });
  const output = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const handle: FleetProcess = {
    name: options.name,
    pid,
    logPath,
    exited,
    isRunning: () => exit === undefined,
    async kill(signal = 'SIGKILL') {
      if (exit) return exit;
      child.kill(signal);
      return exited;
    },
    async stop(graceMs = 10_000) {
      if (exit) return exit;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        exited,
        new Promise<undefined>((done) => {
          timer = setTimeout(() => done(undefined), graceMs);
        }),
      ]);
      clearTimeout(timer);
      return outcome ?? handle.kill('SIGKILL');
    },
    output,
    outputTail(lines = 30) {
      return output().trimEnd().split('\n').slice(-lines).join('\n');
    },
  };
  return handle;
}

/** Processes stopped together, last started first. */
export class ProcessGroup {
  private readonly members: FleetProcess[] = [];

  add<T extends FleetProcess>(member: T): T {
    this.members.push(member);
    return member;
  }

  get processes(): readonly FleetProcess[] {
    return this.members;
  }

  /** Graceful stop of every member still running (SIGTERM, SIGKILL after `graceMs`), in parallel. */
  async stopAll(graceMs = 10_000): Promise<void> {
    const running = [...this.members].reverse().filter((member) => member.isRunning());
    await Promise.all(running.map((member) => member.stop(graceMs)));
  }
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no free port'))));
    });
  });
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function diedBeforeReady(owner: FleetProcess, what: string): Error {
  return new Error(`${owner.name} (pid ${owner.pid}) exited before ${what}; its output ends with:\n${owner.outputTail()}`);
}

/** Polls `url` until it answers 200; fails early, with the process's last output, if `owner` exits. */
export async function waitForHttpOk(
  url: string,
  options: { owner?: FleetProcess; timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last = 'no answer yet';
  for (;;) {
    if (options.owner && !options.owner.isRunning()) throw diedBeforeReady(options.owner, `${url} answered 200`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) {
      const tail = options.owner ? `\n${options.owner.name} output ends with:\n${options.owner.outputTail()}` : '';
      throw new Error(`${url} did not answer 200 in time (last: ${last})${tail}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/** Waits until the process's output matches `pattern` and returns the match. */
export async function waitForOutput(owner: FleetProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(owner.output());
    if (match) return match;
    if (!owner.isRunning()) throw diedBeforeReady(owner, `printing ${pattern}`);
    if (Date.now() > deadline) throw new Error(`${owner.name} did not print ${pattern} within ${timeoutMs} ms:\n${owner.outputTail()}`);
    await sleep(50);
  }
}

/** Config variables a child must not inherit from this process (every `ENV_BINDINGS` name). */
const CONFIG_ENV_NAMES = new Set([...ENV_BINDINGS.map((binding) => binding.env), 'NODE_OPTIONS']);

/** This process's environment without any Assay setting. */
export function fleetEnvBase(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !CONFIG_ENV_NAMES.has(name)) env[name] = value;
  return env;
}

export interface FleetEnvOptions {
  redisUrl: string;
  /** `ASSAY_STORE`: a `postgres://…` URL shared by every process. */
  store: string;
  /** `ASSAY_WAREHOUSE`, e.g. `duckdb:/path/shop.duckdb`. */
  warehouse: string;
  /** `ASSAY_DATA_DIR`; shared by the processes of one fleet (the embedded vector index lives there). */
  dataDir: string;
  queuePrefix: string;
  /** `ASSAY_LLM`. @defaultValue `offline:analyst` */
  llm?: string;
  /** `OPENAI_BASE_URL`, e.g. the simulator's URL + `/v1`. */
  openaiBaseUrl?: string;
  /** @defaultValue `sim-key` when `openaiBaseUrl` is set */
  openaiApiKey?: string;
  /** @defaultValue `info` */
  logLevel?: string;
  /** Any other variables, applied last. */
  extra?: Record<string, string>;
}

/** The environment of a fleet process: this process's, less any Assay setting, plus the fleet's. */
export function fleetEnv(options: FleetEnvOptions): Record<string, string> {
  const env = fleetEnvBase();
  Object.assign(env, {
    REDIS_URL: options.redisUrl,
    ASSAY_STORE: options.store,
    ASSAY_WAREHOUSE: options.warehouse,
    ASSAY_DATA_DIR: options.dataDir,
    ASSAY_QUEUE_PREFIX: options.queuePrefix,
    ASSAY_LLM: options.llm ?? 'offline:analyst',
    LOG_LEVEL: options.logLevel ?? 'info',
    ASSAY_LOG_FORMAT: 'json',
  });
  if (options.openaiBaseUrl !== undefined) {
    env.OPENAI_BASE_URL = options.openaiBaseUrl;
    env.OPENAI_API_KEY = options.openaiApiKey ?? 'sim-key';
  }
  return { ...env, ...options.extra };
}

export interface SimulatorProcess {
  /** Anthropic base URL as is; OpenAI's is `${url}/v1`. */
  url: string;
  process: FleetProcess;
  /** The delay it adds to every reply (0 unless started with one). */
  latencyMs: number;
}

/** `assay llm-simulator` on a free port, answering with the offline analyst unless `brain` says otherwise. */
export async function startSimulator(options: {
  name?: string;
  logDir: string;
  env?: Record<string, string>;
  latencyMs?: number;
  contextWindow?: number;
  brain?: 'analyst' | 'echo';
}): Promise<SimulatorProcess> {
  const args = ['llm-simulator', '--port', '0', '--brain', options.brain ?? 'analyst'];
  if (options.latencyMs !== undefined) args.push('--latency-ms', String(options.latencyMs));
  if (options.contextWindow !== undefined) args.push('--context-window', String(options.contextWindow));
  const child = spawnCli({ name: options.name ?? 'llm-simulator', args, env: options.env ?? fleetEnvBase(), logDir: options.logDir });
  try {
    const [, url] = await waitForOutput(child, /^listening on (http:\/\/\S+)$/m);
    return { url: url as string, process: child, latencyMs: options.latencyMs ?? 0 };
  } catch (error) {
    await child.kill();
    throw error;
  }
}

export interface ApiProcess {
  url: string;
  process: FleetProcess;
}

/** `assay api` on a free port; resolves once `/health/ready` answers 200 (store, warehouse and, with bullmq, Redis reachable). */
export async function startApi(options: {
  name?: string;
  env: Record<string, string>;
  logDir: string;
  runner?: 'bullmq' | 'local';
  port?: number;
  readyTimeoutMs?: number;
}): Promise<ApiProcess> {
  const port = options.port ?? (await freePort());
  const child = spawnCli({
    name: options.name ?? 'api',
    args: ['api', '--host', '127.0.0.1', '--port', String(port), '--runner', options.runner ?? 'bullmq'],
    env: options.env,
    logDir: options.logDir,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttpOk(`${url}/health/ready`, { owner: child, timeoutMs: options.readyTimeoutMs ?? 60_000 });
  } catch (error) {
    await child.kill();
    throw error;
  }
  return { url, process: child };
}

export interface WorkerHandle {
  name: string;
  /** The host name the worker reports as BullMQ's `processedBy` (only its own when `isolated`). */
  hostname: string;
  isolated: boolean;
  queues: readonly string[];
  /** `/readyz` of its health server. */
  readyUrl: string;
  process: FleetProcess;
}

/**
 * `assay worker` consuming `queues` (`ASSAY_WORKER_QUEUES`), with a health server on a free port
 * (`ASSAY_WORKER_HEALTH_PORT`); resolves once `/readyz` answers 200. With `isolateHostname` (and a
 * machine that allows it) the worker's host name is its `name`, so jobs record which process ran them.
 */
export async function startWorker(options: {
  name: string;
  queues: readonly string[];
  env: Record<string, string>;
  logDir: string;
  isolateHostname?: boolean;
  concurrency?: number;
  readyTimeoutMs?: number;
  nodeArgs?: readonly string[];
  /** See SpawnCliOptions.launcher. */
  launcher?: boolean;
}): Promise<WorkerHandle> {
  const healthPort = await freePort();
  const isolated = options.isolateHostname === true && canIsolateHostname();
  const child = spawnCli({
    name: options.name,
    args: ['worker', ...(options.concurrency === undefined ? [] : ['--concurrency', String(options.concurrency)])],
    env: { ...options.env, ASSAY_WORKER_QUEUES: options.queues.join(','), ASSAY_WORKER_HEALTH_PORT: String(healthPort) },
    logDir: options.logDir,
    ...(isolated ? { hostname: options.name } : {}),
    ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
    ...(options.launcher ? { launcher: true } : {}),
  });
  const readyUrl = `http://127.0.0.1:${healthPort}/readyz`;
  try {
    await waitForHttpOk(readyUrl, { owner: child, timeoutMs: options.readyTimeoutMs ?? 60_000 });
  } catch (error) {
    await child.kill();
    throw error;
  }
  return {
    name: options.name,
    hostname: isolated ? options.name : hostname(),
    isolated,
    queues: options.queues,
    readyUrl,
    process: child,
  };
}

const execFileAsync = promisify(execFile);

/** `assay api-key create --json` against the store named by `env` (ASSAY_STORE); returns the key, shown only this once. */
export async function createApiKeyViaCli(
  env: Record<string, string>,
  options: { name?: string; scope?: 'read' | 'run' | 'admin' } = {},
): Promise<{ id: string; key: string }> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [...NODE_ARGS, 'api-key', 'create', '--name', options.name ?? 'bench', '--scope', options.scope ?? 'admin', '--json'],
    { cwd: REPO_ROOT, env, timeout: 60_000 },
  );
  const created = JSON.parse(stdout) as { id?: unknown; key?: unknown };
  if (typeof created.id !== 'string' || typeof created.key !== 'string') throw new Error(`api-key create printed no key: ${stdout}`);
  return { id: created.id, key: created.key };
}
