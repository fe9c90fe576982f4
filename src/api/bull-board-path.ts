/** Where the API mounts the queue dashboard. Its own module so `assay api --help` can name it without loading Bull Board. */
export const BULL_BOARD_PATH = '/admin/queues';
