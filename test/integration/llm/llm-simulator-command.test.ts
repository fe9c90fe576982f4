import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAction } from '../../../src/discovery/parsing/action-parser.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Start `assay llm-simulator …` and resolve with its first stdout line. */
async function startCommand(args: string[]): Promise<{ child: ChildProcess; firstLine: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'llm-simulator', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const firstLine = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve(output);
    });
    child.once('exit', (code) => reject(new Error(`llm-simulator exited with ${code} before listening`)));
  });
  return { child, firstLine };
}

describe('when `assay llm-simulator` runs', () => {
  it('prints exactly "listening on http://127.0.0.1:<port>", serves the options given, and exits 0 on SIGTERM', async () => {
    const { child, firstLine } = await startCommand(['--port', '0', '--context-window', '20']);
    const match = /^listening on (http:\/\/127\.0\.0\.1:(\d+))\n$/.exec(firstLine);
    expect(match).not.toBeNull();
    const answer = await fetch(`${match![1]}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({
        model: 'gpt-5.4',
        messages: [{ role: 'user', content: 'a prompt that is longer than twenty tokens, '.repeat(5) }],
      }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { code: 'context_length_exceeded' } });
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('serves no prompt-cache hits with --no-prompt-caching', async () => {
    const { child, firstLine } = await startCommand(['--port', '0', '--no-prompt-caching', '--brain', 'echo']);
    const url = /^listening on (\S+)\n$/.exec(firstLine)?.[1];
    const body = JSON.stringify({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'the same long prompt, '.repeat(400) }] });
    const ask = async () =>
      (await (
        await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
          body,
        })
      ).json()) as {
        usage: { prompt_tokens_details: { cached_tokens: number } };
      };
    await ask();
    expect((await ask()).usage.prompt_tokens_details.cached_tokens).toBe(0);
    child.kill('SIGTERM');
    await once(child, 'exit');
  });

  it('answers with the offline analyst by default: an exploration prompt gets one JSON action', async () => {
    const { child, firstLine } = await startCommand(['--port', '0']);
    const url = /^listening on (\S+)\n$/.exec(firstLine)![1];
    const answer = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({
        model: 'gpt-5.4',
        messages: [
          {
            role: 'system',
            content:
              'SQL dialect: DuckDB\n\nmain.orders | 5c | 1.2K rows | order, revenue | -> customers\nmain.customers | 4c | 300 rows | customer |',
          },
          {
            role: 'user',
            content:
              'Begin exploring the warehouse. You have up to 10 steps.\nBudgets for this run: 30 lookup_schema calls and 30 search_tables calls.\nReply with exactly one JSON action per turn.',
          },
        ],
      }),
    });
    const body = (await answer.json()) as { choices: Array<{ message: { content: string } }> };
    expect(parseAction(body.choices[0]!.message.content)).toMatchObject({ ok: true });
    child.kill('SIGTERM');
    await once(child, 'exit');
  });

  it('rejects a flag that is not a number with a validation exit code', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'llm-simulator', '--rate-limit-every', 'often'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stderr).toContain('--rate-limit-every must be a whole number');
  });
});
