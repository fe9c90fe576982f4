/** Collection names every adapter accepts: safe as a file name and as a Qdrant collection name. */
import { ValidationError } from '../errors/index.js';

const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;

export function assertCollectionName(name: string): void {
  if (!COLLECTION_NAME.test(name)) {
    throw new ValidationError(
      `vector collection name "${name}" is invalid: use letters, digits, _ and - (1-200, starting with a letter or digit)`,
    );
  }
}
