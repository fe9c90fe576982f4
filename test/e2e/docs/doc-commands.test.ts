/**
 * Every `sh` block of the README and of docs/ runs as written, in order, in a fresh directory that
 * looks like a clone on which `npm ci` has run (the repository's files linked in, nothing else), and
 * none of them prints a stack trace or a raw JSON log line.
 *
 * A block can be annotated with an HTML comment on the line before it:
 * - `<!-- doc-test: skip (why) -->` — not run; the reason is printed;
 * - `<!-- doc-test: needs BINARY … -->` — run only where these are installed (`postgresql` means the
 *   server binaries under /usr/lib/postgresql); skipped with the reason otherwise.
 *
 * What the runner changes, and why:
 * - `npx assay …` and `npx tsx …` run the repository's own bins through a shim first on PATH: npm's
 *   exec would add ~1.5 s to every command and write a package into the npm cache outside the
 *   sandbox (npx's own start-up is measured in test/bench/startup.ts instead);
 * - `npm ci` is a no-op (the sandbox's node_modules is the repository's: reinstalling would replace it);
 * - port 8080 becomes a free port, so the test does not collide with whatever else runs here.
 * Each block runs in its own `bash -e -o pipefail` with job control (`set -m`), as an interactive
 * shell has it: `kill %1` then stops a background server together with its children.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type CiRequiredServer, skipForMissingServer } from '../../support/required-servers.js';
import { tempDir } from '../../support/temp-dir.js';

/** `needs` names of the servers CI must have (see test/support/required-servers.ts). */
const CI_SERVER_OF_BINARY: Record<string, CiRequiredServer> = { 'redis-server': 'redis-server', postgresql: 'PostgreSQL' };
const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** What a clone holds once `npm ci` has run: linked, not copied, so the sandbox costs nothing to make. */
const CLONE_ENTRIES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'vitest.config.ts',
  'biome.json',
  '.dependency-cruiser.cjs',
  'bin',
  'dist',
  'src',
  'scripts',
  'domain-packs',
  'docs',
  'test',
  'k8s',
  'node_modules',
];
const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);
const BLOCK_TIMEOUT_MS = 600_000;

interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  script: string;
  skip?: string;
}

function installed(binary: string): boolean {
  if (binary === 'postgresql') return existsSync('/usr/lib/postgresql') || process.env.POSTGRES_BIN_DIR !== undefined;
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, binary)));
}

/** The shell blocks of a markdown file, with the directive of the line before each. */
export function shellBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^```(\S*)\s*$/.exec(lines[index]!);
    if (!fence) continue;
    const end = lines.findIndex((line, at) => at > index && /^```\s*$/.test(line));
    if (end < 0) break;
    const language = fence[1] ?? '';
    if (SHELL_LANGUAGES.has(language)) {
      const directive = /^<!-- doc-test: (.+) -->$/.exec(lines[index - 1]?.trim() ?? '')?.[1];
      let skip: string | undefined;
      if (directive?.startsWith('skip'))
        skip =
          directive
            .slice('skip'.length)
            .trim()
            .replace(/^\((.*)\)$/, '$1') || 'marked skip';
      else if (directive?.startsWith('needs ')) {
        const missing = directive
          .slice('needs '.length)
          .split(/\s+/)
          .filter((binary) => !installed(binary));
        if (missing.length > 0) skip = `needs ${missing.join(' and ')}, not installed here`;
        // what .ci/run installs is never skipped under CI
        for (const binary of missing) {
          const server = CI_SERVER_OF_BINARY[binary];
          if (server) skipForMissingServer(server, `${file}:${index + 1} needs ${binary}, not installed here`);
        }
      } else if (directive !== undefined) throw new Error(`${file}:${index}: unknown doc-test directive "${directive}"`);
      blocks.push({ file, line: index + 1, script: lines.slice(index + 1, end).join('\n'), ...(skip ? { skip } : {}) });
    }
    index = end;
  }
  return blocks;
}

function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A directory that looks like a fresh clone after `npm ci`, with the npx and npm shims. */
function makeSandbox(): { dir: string; env: Record<string, string> } {
  const dir = tempDir('assay-doc-commands-');
  // a clone is readable by others: the throwaway PostgreSQL of `assay fleet up` runs as the postgres user
  chmodSync(dir, 0o755);
  for (const entry of CLONE_ENTRIES) if (existsSync(join(REPO_ROOT, entry))) symlinkSync(join(REPO_ROOT, entry), join(dir, entry));
  const shims = join(dir, '.shims');
  mkdirSync(shims);
  mkdirSync(join(dir, '.home'));
  mkdirSync(join(dir, '.tmp'));
  writeFileSync(
    join(shims, 'npx'),
    `#!/bin/sh\n# the doc test's npx: the repository's own bins, without npm's resolution (see doc-commands.test.ts)\ncase "$1" in\n  assay) shift; exec node "${join(REPO_ROOT, 'bin', 'assay.js')}" "$@" ;;\n  tsx) shift; exec "${join(REPO_ROOT, 'node_modules', '.bin', 'tsx')}" "$@" ;;\n  *) echo "doc test: npx $1 is not one of the repository's bins" >&2; exit 127 ;;\nesac\n`,
  );
  const realNpm =
    (process.env.PATH ?? '')
      .split(delimiter)
      .map((entry) => join(entry, 'npm'))
      .find((path) => existsSync(path)) ?? 'npm';
  writeFileSync(
    join(shims, 'npm'),
    `#!/bin/sh\nif [ "$1" = ci ]; then echo "doc test: npm ci already ran in this checkout"; exit 0; fi\nexec "${realNpm}" "$@"\n`,
  );
  chmodSync(join(shims, 'npx'), 0o755);
  chmodSync(join(shims, 'npm'), 0o755);
  const env: Record<string, string> = {
    PATH: `${shims}${delimiter}${process.env.PATH ?? ''}`,
    HOME: join(dir, '.home'),
    TMPDIR: join(dir, '.tmp'),
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  };
  return { dir, env };
}

/** Runs one block; background jobs (and their children) are stopped however the block ends. */
function runBlock(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const wrapped = `set -m\ntrap 'for job in $(jobs -p); do kill -- -"$job" 2>/dev/null; done; wait' EXIT\n${script}\n`;
  return new Promise((done) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', wrapped], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), BLOCK_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

const STACK_LINE = /^\s+at .+(\(.+:\d+:\d+\)|:\d+:\d+)$/m;
const RAW_LOG_LINE = /^\{"level":\d+/m;
const ASSAY_ERROR_LINE = /^assay: \[[a-z_]+\]/m;

for (const file of DOCUMENTS) {
  const blocks = shellBlocks(file, readFileSync(join(REPO_ROOT, file), 'utf8'));
  if (blocks.length === 0) continue;
  describe(`the shell blocks of ${file}`, () => {
    const sandbox = makeSandbox();
    afterAll(async () => {
      // a block that failed halfway may have left the local fleet up: it goes with the sandbox
      if (existsSync(join(sandbox.dir, '.assay', 'fleet')))
        await runBlock(`node "${join(REPO_ROOT, 'bin', 'assay.js')}" fleet down`, sandbox.dir, sandbox.env);
    });
    for (const block of blocks) {
      const name = `${file}:${block.line} runs as written`;
      if (block.skip) {
        it.skip(`${name} (skipped: ${block.skip})`, () => undefined);
        console.info(`doc test: ${file}:${block.line} skipped: ${block.skip}`);
        continue;
      }
      it(
        name,
        async () => {
          const port = await freePort();
          const script = block.script.replaceAll('8080', String(port));
          const { code, output } = await runBlock(script, sandbox.dir, sandbox.env);
          expect(code, `${file}:${block.line} exited with ${code}:\n${output.slice(-4000)}`).toBe(0);
          expect(output, 'a stack trace reached the output').not.toMatch(STACK_LINE);
          expect(output, 'a raw JSON log line reached the output').not.toMatch(RAW_LOG_LINE);
          // a command that failed inside `a && b` or a pipeline stage would not stop the block: its message still shows
          expect(output, 'an assay command failed').not.toMatch(ASSAY_ERROR_LINE);
        },
        BLOCK_TIMEOUT_MS + 10_000,
      );
    }
  });
}

describe('the doc-test directives', () => {
  it('reads skip reasons and needs, and refuses an unknown directive', () => {
    const text = [
      '<!-- doc-test: skip (slow) -->',
      '```sh',
      'a',
      '```',
      '<!-- doc-test: needs no-such-binary-here -->',
      '```bash',
      'b',
      '```',
      '```json',
      '{}',
      '```',
    ].join('\n');
    expect(shellBlocks('x.md', text)).toEqual([
      { file: 'x.md', line: 2, script: 'a', skip: 'slow' },
      { file: 'x.md', line: 6, script: 'b', skip: 'needs no-such-binary-here, not installed here' },
    ]);
    expect(() => shellBlocks('x.md', '<!-- doc-test: maybe -->\n```sh\nc\n```')).toThrowError(/unknown doc-test directive "maybe"/);
  });
});
