/** The BullMQ dashboard (Bull Board) mounted on the API, read-only unless asked otherwise. */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import type { Hono } from 'hono';
import { BULL_BOARD_PATH } from './bull-board-path.js';

export interface BullBoardOptions {
  /** Retrying, promoting and removing jobs from the UI. Off by default: the board is for looking. @defaultValue true */
  readOnly?: boolean;
}

export function mountBullBoard(app: Hono, queues: readonly Queue[], options: BullBoardOptions = {}): void {
  const readOnlyMode = options.readOnly ?? true;
  const serverAdapter = new HonoAdapter(serveStatic);
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode, allowRetries: !readOnlyMode })),
    // @bull-board/hono pins its own copy of @bull-board/api (a patch release behind): the classes are
    // the same at run time, but TypeScript sees two declarations of a private field
    serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'Assay queues' } },
  });
  app.route(BULL_BOARD_PATH, serverAdapter.registerPlugin());
  // the page's <base href> ends in a slash, so browsers and bookmarks ask for it too
  app.get(`${BULL_BOARD_PATH}/`, (c) => c.redirect(BULL_BOARD_PATH));
}
