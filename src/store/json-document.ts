/**
 * Plain-JSON document helpers the run stores share: a deep clone and a deep equality for validated
 * documents (strings, numbers, booleans, null, arrays, plain objects: what a zod parse of JSON yields),
 * and the difference between two versions of a document as a short list of path operations, so a
 * store can write what changed (an appended journal line, a `jsonb_set`) instead of the whole document.
 *
 * A key whose value is `undefined` counts as absent everywhere, as in JSON.
 */

export type JsonPath = ReadonlyArray<string | number>;

/**
 * `set`: the value at `path` becomes `value` (a missing last key is added);
 * `append`: `items` are pushed onto the array at `path`;
 * `unset`: the key at the end of `path` is removed.
 * The operations of one difference touch disjoint paths, except that an `append` on an array may be
 * followed by `set`s of its earlier elements: applied in order, they give the new document.
 */
export type JsonOperation =
  | { op: 'set'; path: JsonPath; value: unknown }
  | { op: 'append'; path: JsonPath; items: unknown[] }
  | { op: 'unset'; path: JsonPath };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, `__proto__` included (JSON.parse makes it an own key; plain assignment would change the prototype). */
function setMember(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Deep copy of JSON-shaped data; several times cheaper than structuredClone for a run document. */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = cloneJson(value[index]);
    return copy as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry === undefined) continue;
    if (key === '__proto__') setMember(copy, key, cloneJson(entry));
    else copy[key] = cloneJson(entry);
  }
  return copy as T;
}

function definedKeyCount(value: Record<string, unknown>): number {
  let count = 0;
  for (const key of Object.keys(value)) if (value[key] !== undefined) count++;
  return count;
}

/** Deep equality of JSON-shaped data (`undefined` members count as absent). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) if (!jsonEqual(left[index], right[index])) return false;
    return true;
  }
  if (Array.isArray(right)) return false;
  const a = left as Record<string, unknown>;
  const b = right as Record<string, unknown>;
  let count = 0;
  for (const key of Object.keys(a)) {
    const value = a[key];
    if (value === undefined) continue;
    count++;
    if (!jsonEqual(value, b[key])) return false;
  }
  return count === definedKeyCount(b);
}

/** The operations that turn `before` into `after` (both JSON-shaped); empty when they are equal. */
export function diffJson(before: unknown, after: unknown): JsonOperation[] {
  const operations: JsonOperation[] = [];
  diffInto(before, after, [], operations);
  return operations;
}

function diffInto(before: unknown, after: unknown, path: Array<string | number>, out: JsonOperation[]): void {
  if (before === after) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of Object.keys(after)) {
      const next = own(after, key);
      const previous = own(before, key);
      if (next === undefined) continue;
      path.push(key);
      if (previous === undefined) out.push({ op: 'set', path: [...path], value: next });
      else diffInto(previous, next, path, out);
      path.pop();
    }
    for (const key of Object.keys(before)) {
      if (own(before, key) !== undefined && own(after, key) === undefined) out.push({ op: 'unset', path: [...path, key] });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && after.length >= before.length) {
    // the append first: later sets of earlier elements apply on top of it
    if (after.length > before.length) out.push({ op: 'append', path: [...path], items: after.slice(before.length).map(storedForm) });
    for (let index = 0; index < before.length; index++) {
      path.push(index);
      diffInto(before[index], after[index], path, out);
      path.pop();
    }
    return;
  }
  if (!jsonEqual(before, after)) out.push({ op: 'set', path: [...path], value: storedForm(after) });
}

/** A value as JSON stores it: an undefined array element (at any depth) becomes null, an undefined member goes. */
function storedForm(value: unknown): unknown {
  if (value === undefined) return null;
  return typeof value === 'object' && value !== null ? JSON.parse(JSON.stringify(value)) : value;
}

/** A key's own value: a "__proto__" key of parsed JSON is data, and a missing one is not the prototype. */
function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Applies operations from `diffJson` to a JSON document in place and returns it (the root may be replaced). */
export function applyJsonOperations(document: unknown, operations: readonly JsonOperation[]): unknown {
  let root = document;
  for (const operation of operations) {
    if (operation.path.length === 0) {
      if (operation.op === 'set') root = operation.value;
      else if (operation.op === 'append' && Array.isArray(root)) root.push(...operation.items);
      else throw new Error(`cannot ${operation.op} the document root`);
      continue;
    }
    const parent = containerAt(root, operation.path.slice(0, -1));
    const last = operation.path[operation.path.length - 1] as string | number;
    if (operation.op === 'set') setMember(parent as Record<string | number, unknown>, last, operation.value);
    else if (operation.op === 'unset') delete (parent as Record<string | number, unknown>)[last];
    else {
      const target = (parent as Record<string | number, unknown>)[last];
      if (!Array.isArray(target)) throw new Error(`cannot append to ${JSON.stringify(operation.path)}: not an array`);
      target.push(...operation.items);
    }
  }
  return root;
}

function containerAt(root: unknown, path: JsonPath): object {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) break;
    node = (node as Record<string | number, unknown>)[key];
  }
  if (typeof node !== 'object' || node === null) throw new Error(`no object or array at ${JSON.stringify(path)}`);
  return node;
}
