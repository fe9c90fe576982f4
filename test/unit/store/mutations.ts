/**
 * Random edits of a JSON document for the property tests of the run stores: pick any node of the
 * document and replace it, nudge it, remove it, grow or shrink an array, or add a key the schema does not know.
 * Replacements are either random JSON or a copy of another node of the same document, so many edits
 * keep the document valid and many do not.
 */
import fc from 'fast-check';
import { cloneJson } from '../../../src/store/json-document.js';

type Container = Record<string | number, unknown>;

interface Slot {
  parent: Container;
  key: string | number;
}

function slotsOf(root: unknown): Slot[] {
  const slots: Slot[] = [];
  const visit = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    const container = node as Container;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      slots.push({ parent: container, key });
      visit(container[key]);
    }
  };
  visit(root);
  return slots;
}

export interface Edit {
  at: number;
  kind: 'replace' | 'copy' | 'tweak' | 'remove' | 'grow' | 'shrink' | 'unknown-key';
  value: unknown;
  from: number;
}

export const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'copy', 'tweak', 'tweak', 'tweak', 'remove', 'grow', 'grow', 'shrink', 'unknown-key'),
  value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
  from: fc.nat(),
});

/** Applies the edits to a copy of `document` and returns the copy. */
export function applyEdits<T>(document: T, edits: readonly Edit[]): T {
  const copy = cloneJson(document);
  for (const change of edits) {
    const slots = slotsOf(copy);
    if (slots.length === 0) continue;
    const slot = slots[change.at % slots.length] as Slot;
    const source = slots[change.from % slots.length] as Slot;
    const target = slot.parent[slot.key];
    switch (change.kind) {
      case 'replace':
        slot.parent[slot.key] = change.value;
        break;
      case 'copy':
        slot.parent[slot.key] = cloneJson(source.parent[source.key]);
        break;
      case 'tweak':
        // small edits that often stay valid: a count up by one, a flag flipped, a longer text
        if (typeof target === 'number') slot.parent[slot.key] = target + 1;
        else if (typeof target === 'boolean') slot.parent[slot.key] = !target;
        else if (typeof target === 'string') slot.parent[slot.key] = `${target}x`;
        break;
      case 'remove':
        if (Array.isArray(slot.parent)) slot.parent.splice(Number(slot.key), 1);
        else delete slot.parent[slot.key];
        break;
      case 'grow':
        if (Array.isArray(target)) target.push(cloneJson(target.length > 0 ? target[target.length - 1] : change.value));
        else if (typeof target === 'object' && target !== null) (target as Container).extra = cloneJson(change.value);
        break;
      case 'shrink':
        if (Array.isArray(target)) target.pop();
        break;
      case 'unknown-key':
        if (typeof target === 'object' && target !== null && !Array.isArray(target)) (target as Container).not_in_schema = 1;
        break;
    }
  }
  return copy;
}
