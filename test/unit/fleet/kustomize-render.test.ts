import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderKustomization } from '../../support/kustomize.js';
import { tempDir } from '../../support/temp-dir.js';

function tree(files: Record<string, string>): string {
  const root = tempDir('assay-kustomize-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: { name: w }
spec:
  template:
    spec:
      containers:
        - name: main
          env: [{ name: A, value: "1" }, { name: B, value: "2" }]
`;
const scaled = `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: { name: w }
spec: { triggers: [{ type: redis }, { type: redis }] }
`;

describe('the test kustomize renderer', () => {
  it('merges built-in kinds item by item, replaces custom resources’ lists, then suffixes names', () => {
    const root = tree({
      'base/kustomization.yaml': 'resources: [deployment.yaml, scaled.yaml]\n',
      'base/deployment.yaml': deployment,
      'base/scaled.yaml': scaled,
      'kustomization.yaml': `nameSuffix: -x
resources: [base]
patches:
  - target: { kind: Deployment, name: w }
    patch: |-
      kind: Deployment
      metadata: { name: w }
      spec: { template: { spec: { containers: [{ name: main, env: [{ name: B, value: "3" }] }] } } }
  - target: { kind: ScaledObject, name: w }
    patch: |-
      kind: ScaledObject
      metadata: { name: w }
      spec: { triggers: [{ type: cpu }] }
`,
    });
    const [rendered, scaledObject] = renderKustomization(root) as any[];
    expect(rendered.metadata.name).toBe('w-x');
    expect(rendered.spec.template.spec.containers[0].env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
    ]);
    expect(scaledObject.spec.triggers).toEqual([{ type: 'cpu' }]);
  });

  it('refuses what it does not implement, and a patch that matches nothing', () => {
    expect(() => renderKustomization(tree({ 'kustomization.yaml': 'commonLabels: { a: b }\n' }))).toThrow(/commonLabels not supported/);
    const root = tree({
      'kustomization.yaml': 'resources: [d.yaml]\npatches: [{ target: { kind: Deployment, name: other }, patch: "kind: Deployment" }]\n',
      'd.yaml': deployment,
    });
    expect(() => renderKustomization(root)).toThrow(/matches no resource/);
  });
});
