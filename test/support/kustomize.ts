/**
 * Renders a kustomization the way `kubectl kustomize` does, for the subset of kustomize the shipped
 * manifests use: `resources` (files and directories), `namePrefix`/`nameSuffix`, and `patches` whose
 * patch is a strategic-merge document (inline or a file) with a `{ kind, name }` target. Anything else
 * in a kustomization.yaml is refused with an error naming it, so the manifests cannot quietly start
 * relying on a feature this renderer would get wrong. `kubectl kustomize k8s/` remains the reference.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

interface Patch {
  patch?: string;
  path?: string;
  target?: { kind?: string; name?: string };
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namePrefix', 'nameSuffix', 'patches']);

/** List fields of built-in kinds that strategic merge merges item by item, and the key that pairs items. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  ports: 'containerPort',
  volumes: 'name',
  volumeMounts: 'mountPath',
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Built-in kinds get strategic merge; custom resources (an API group with a dot) get JSON merge patch. */
function isCustomResource(resource: Resource): boolean {
  const group = resource.apiVersion.includes('/') ? (resource.apiVersion.split('/')[0] ?? '') : '';
  return group.includes('.') && !group.endsWith('.k8s.io');
}

function merge(base: Json, patch: Json, strategic: boolean, field?: string): Json {
  if (patch === null) return null;
  if (isObject(base) && isObject(patch)) {
    const out: Record<string, Json> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = key in base ? merge(base[key] as Json, value, strategic, key) : value;
    }
    return out;
  }
  const mergeKey = field ? MERGE_KEYS[field] : undefined;
  if (strategic && mergeKey && Array.isArray(base) && Array.isArray(patch)) {
    const out = [...base];
    for (const item of patch) {
      const at = isObject(item) ? out.findIndex((existing) => isObject(existing) && existing[mergeKey] === item[mergeKey]) : -1;
      if (at >= 0) out[at] = merge(out[at] as Json, item, strategic);
      else out.push(item);
    }
    return out;
  }
  return patch;
}

function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

function applyPatch(resources: Resource[], patch: Patch, directory: string, file: string): void {
  const text = patch.patch ?? (patch.path ? readFileSync(join(directory, patch.path), 'utf8') : undefined);
  if (text === undefined) throw new Error(`${file}: a patch needs "patch" or "path"`);
  const document = YAML.parse(text) as Resource;
  if (Array.isArray(document) || !isObject(document)) throw new Error(`${file}: only strategic-merge patches are supported, not JSON 6902`);
  const kind = patch.target?.kind ?? document.kind;
  const name = patch.target?.name ?? document.metadata?.name;
  const matches = resources.filter(
    (resource) => (!kind || anchored(kind).test(resource.kind)) && (!name || anchored(name).test(resource.metadata.name)),
  );
  if (matches.length === 0) throw new Error(`${file}: patch for ${kind}/${name} matches no resource`);
  const { apiVersion: _a, kind: _k, metadata, ...body } = document;
  const { name: _n, ...metadataFields } = metadata ?? { name };
  for (const resource of matches) {
    const merged = merge({ ...resource } as Json, { ...body, metadata: metadataFields } as Json, !isCustomResource(resource)) as Resource;
    Object.assign(resource, merged);
  }
}

/** Names a pod spec refers to: kustomize would rename these too when the named object is in the same build. */
function referencedNames(resource: Resource): string[] {
  const names: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value))
      for (const [key, inner] of Object.entries(value)) {
        if (/^(configMapRef|secretRef|configMap|secret|configMapKeyRef|secretKeyRef)$/.test(key) && isObject(inner)) {
          const name = inner.name ?? inner.secretName;
          if (typeof name === 'string') names.push(name);
        }
        visit(inner);
      }
  };
  visit(resource);
  return names;
}

export function renderKustomization(directory: string): Resource[] {
  const file = join(directory, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${directory}: no kustomization.yaml`);
  const spec = YAML.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const unsupported = Object.keys(spec).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0) throw new Error(`${file}: ${unsupported.join(', ')} not supported by this renderer`);
  const resources: Resource[] = [];
  for (const entry of (spec.resources as string[] | undefined) ?? []) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) resources.push(...renderKustomization(path));
    else
      resources.push(
        ...YAML.parseAllDocuments(readFileSync(path, 'utf8'))
          .map((document) => document.toJS() as Resource)
          .filter((resource) => resource !== null),
      );
  }
  for (const patch of (spec.patches as Patch[] | undefined) ?? []) applyPatch(resources, patch, directory, file);
  const prefix = (spec.namePrefix as string | undefined) ?? '';
  const suffix = (spec.nameSuffix as string | undefined) ?? '';
  if (prefix || suffix) {
    const names = new Set(resources.map((resource) => resource.metadata.name));
    const inBuild = resources.flatMap(referencedNames).filter((name) => names.has(name));
    if (inBuild.length > 0)
      throw new Error(`${file}: renaming referenced objects (${inBuild.join(', ')}) is not supported by this renderer`);
    for (const resource of resources) resource.metadata.name = `${prefix}${resource.metadata.name}${suffix}`;
  }
  const seen = new Set<string>();
  for (const resource of resources) {
    const id = `${resource.kind}/${resource.metadata.name}`;
    if (seen.has(id)) throw new Error(`${file}: ${id} defined twice`);
    seen.add(id);
  }
  return resources;
}
