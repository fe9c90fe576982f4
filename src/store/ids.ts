/** The id rule every RunStore adapter applies, so a document id means the same thing in every store. */
import { ValidationError } from '../errors/index.js';

export const SAFE_ID = /^[A-Za-z0-9_-]{1,80}$/;

export function assertSafeId(kind: string, id: string): void {
  // ids become file names in the embedded store: refuse anything that could escape a directory
  if (!SAFE_ID.test(id))
    throw new ValidationError(`${kind} id "${id}" must be 1-80 letters, digits, _ or -`, [{ path: `${kind}_id`, message: 'unsafe id' }]);
}
