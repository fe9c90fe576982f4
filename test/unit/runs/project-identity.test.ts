import { describe, expect, it } from 'vitest';
import { projectSchema } from '../../../src/domain/index.js';
import { ConflictError } from '../../../src/errors/index.js';
import { assertProjectTarget, findProjectFor, newProjectId, warehouseIdentity } from '../../../src/runs/project-identity.js';

const project = (id: string, url: string, domain: string, createdAt = '2026-11-01T00:00:00.000Z') =>
  projectSchema.parse({ id, name: id, domain, warehouse: { url }, llm: 'offline:analyst', created_at: createdAt, updated_at: createdAt });

describe('when warehouses are compared for a project', () => {
  it('compares DuckDB files by absolute path and PostgreSQL without the password', () => {
    expect(warehouseIdentity('duckdb:/data/a/../shop.duckdb')).toBe('duckdb:/data/shop.duckdb');
    expect(warehouseIdentity('postgres://bob:secret@db:5432/shop')).toBe(warehouseIdentity('postgres://bob:***@db/shop'));
    expect(warehouseIdentity('postgres://bob@db/shop')).not.toBe(warehouseIdentity('postgres://bob@db/other'));
  });
});

describe('when a run names no project', () => {
  const social1 = { warehouse: warehouseIdentity('duckdb:/data/social1.duckdb'), pack: 'social' };
  const social2 = { warehouse: warehouseIdentity('duckdb:/data/social2.duckdb'), pack: 'social' };

  it('gives two warehouses with the same pack two different readable ids', () => {
    const first = newProjectId('social', social1);
    const second = newProjectId('social', social2);
    expect(first).toMatch(/^social-social1-[0-9a-f]{6}$/);
    expect(second).toMatch(/^social-social2-[0-9a-f]{6}$/);
    expect(
      projectSchema.shape.id.safeParse(newProjectId('a'.repeat(80), { warehouse: `duckdb:/${'b'.repeat(90)}.duckdb`, pack: 'x' })).success,
    ).toBe(true);
  });

  it('finds the existing project of the same warehouse and pack, whatever its id (a project from before ids named warehouses)', () => {
    const projects = [
      project('social-project', 'duckdb:/data/social1.duckdb', 'social'),
      project('other', 'duckdb:/data/social2.duckdb', 'gaming'),
    ];
    expect(findProjectFor(projects, social1)?.id).toBe('social-project');
    expect(findProjectFor(projects, social2)).toBeUndefined();
  });
});

describe('when a run names a project that explores something else', () => {
  it('refuses to re-point it, naming both warehouses', () => {
    const existing = project('social-project', 'duckdb:/data/social1.duckdb', 'social');
    const attempt = () => assertProjectTarget(existing, { warehouse: 'duckdb:/data/social2.duckdb', pack: 'social' });
    expect(attempt).toThrowError(ConflictError);
    expect(attempt).toThrowError(/explores duckdb:\/data\/social1\.duckdb .* names warehouse duckdb:\/data\/social2\.duckdb/);
  });

  it('accepts the same warehouse and pack', () => {
    const existing = project('shop', 'postgres://bob:***@db/shop', 'ecommerce');
    expect(() =>
      assertProjectTarget(existing, { warehouse: warehouseIdentity('postgres://bob:pw@db:5432/shop'), pack: 'ecommerce' }),
    ).not.toThrow();
  });
});
