/** Reading a server-sent event stream in tests: frames split on blank lines, fields parsed per the SSE format. */
export interface SseFrame {
  event?: string;
  id?: string;
  data?: string;
  /** Comment lines (`: …`), e.g. heartbeats. */
  comments: string[];
}

export function parseSseFrames(text: string): SseFrame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const frame: SseFrame = { comments: [] };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
        else {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
          else if (field === 'event' || field === 'id') frame[field] = value;
        }
      }
      return frame;
    });
}

/** Reads a response body to its end, giving up after `timeoutMs`. */
export async function readAll(body: ReadableStream<Uint8Array>, timeoutMs: number): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      await reader.cancel();
      throw new Error(`stream still open after ${timeoutMs} ms; got so far:\n${text}`);
    }
    const chunk = await Promise.race([reader.read(), new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), remaining))]);
    if (chunk === 'timeout') continue;
    if (chunk.done) return text + decoder.decode();
    text += decoder.decode(chunk.value, { stream: true });
  }
}
