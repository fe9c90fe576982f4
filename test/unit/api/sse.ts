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

export interface SseReader {
  /** Reads until `arrived(framesSoFar)` holds and returns the frames so far; fails if the stream ends or `timeoutMs` passes first. */
  until(what: string, arrived: (frames: SseFrame[]) => boolean): Promise<SseFrame[]>;
  /** Reads to the end of the stream and returns every frame. */
  rest(): Promise<SseFrame[]>;
}

/**
 * Reads a stream frame by frame, so a test can wait for the event it caused before causing the next
 * one instead of pausing. `timeoutMs` is a ceiling per wait for a broken stream, never a measure.
 */
export function readFrames(body: ReadableStream<Uint8Array>, timeoutMs: number): SseReader {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  // only whole frames (ended by a blank line) count
  const complete = () => parseSseFrames(text.slice(0, text.lastIndexOf('\n\n') + 2));
  async function readMore(deadline: number, what: string): Promise<void> {
    const remaining = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const chunk = await Promise.race([
      reader.read(),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(remaining, 0));
      }),
    ]);
    clearTimeout(timer);
    if (chunk === 'timeout') {
      await reader.cancel();
      throw new Error(`no ${what} within ${timeoutMs} ms; got so far:\n${text}`);
    }
    if (chunk.done) {
      text += decoder.decode();
      ended = true;
    } else text += decoder.decode(chunk.value, { stream: true });
  }
  return {
    async until(what, arrived) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const frames = complete();
        if (arrived(frames)) return frames;
        if (ended) throw new Error(`the stream ended before ${what}; got:\n${text}`);
        await readMore(deadline, what);
      }
    },
    async rest() {
      const deadline = Date.now() + timeoutMs;
      while (!ended) await readMore(deadline, 'end of the stream');
      return parseSseFrames(text);
    },
  };
}
