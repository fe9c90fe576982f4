/** Error answers the route declarations share: each is a status's description and the one error body. */
import type { RouteResponse } from './routing.js';
import { errorBodySchema } from './schemas.js';

export const error = (description: string): RouteResponse => ({ description, json: errorBodySchema });
export const invalid = error('invalid body or parameters; `issues` names each field');
export const missing = (what: string): RouteResponse => error(`${what} does not exist`);
