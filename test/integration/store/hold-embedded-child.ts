/** Opens the embedded store in argv[2], says "ready", and holds it until killed. */
import { createEmbeddedRunStore } from '../../../src/store/embedded.js';

createEmbeddedRunStore({ dir: process.argv[2] as string });
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
