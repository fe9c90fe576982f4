import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PackError } from '../../../src/errors/index.js';
import { assertTemplateVariables, renderTemplate, templateVariables } from '../../../src/discovery/packs/template.js';

function thrown(action: () => unknown): PackError {
  try {
    action();
  } catch (error) {
    if (error instanceof PackError) return error;
    throw error;
  }
  throw new Error('expected a PackError');
}

describe('templateVariables', () => {
  it('lists each variable once, in order of first use', () => {
    expect(templateVariables('{{B}} and {{A_1}} then {{B}} again')).toEqual(['B', 'A_1']);
  });

  it('ignores JSON braces that are not placeholders', () => {
    expect(templateVariables('{"insights": [{"metrics": {"a": 1}}]}')).toEqual([]);
  });

  it('refuses a placeholder that is not UPPER_SNAKE_CASE, naming it and the file', () => {
    const error = thrown(() => templateVariables('hello {{ name }}', { file: 'prompts/x.md' }));
    expect(error.message).toBe('prompts/x.md has a malformed placeholder {{ name }} (variables are {{UPPER_SNAKE_CASE}})');
  });
});

describe('renderTemplate', () => {
  describe('when every variable has a value', () => {
    it('replaces every occurrence of each variable', () => {
      expect(renderTemplate('{{A}}-{{B}}-{{A}}', { A: 'x', B: 'y' })).toBe('x-y-x');
    });

    it('inserts values literally, without expanding placeholders or $-patterns inside them', () => {
      const rendered = renderTemplate('start {{A}} end {{B}}', { A: 'has {{B}} and $& and $1', B: 'b' });
      expect(rendered).toBe('start has {{B}} and $& and $1 end b');
    });

    it('accepts values for variables the template does not use', () => {
      expect(renderTemplate('only {{A}}', { A: '1', UNUSED: '2' })).toBe('only 1');
    });

    it('leaves text without placeholders unchanged (property)', () => {
      fc.assert(
        fc.property(
          fc.string().filter((text) => !text.includes('{{')),
          (text) => {
            expect(renderTemplate(text, {})).toBe(text);
          },
        ),
      );
    });

    it('never re-expands a value, whatever it contains (property)', () => {
      fc.assert(
        fc.property(fc.string(), fc.string(), (left, right) => {
          expect(renderTemplate('{{L}}|{{R}}', { L: left, R: right })).toBe(`${left}|${right}`);
        }),
      );
    });
  });

  describe('when a variable has no value', () => {
    it('throws naming the file and the variable instead of substituting an empty string', () => {
      const error = thrown(() => renderTemplate('a {{PRESENT}} b {{ABSENT}}', { PRESENT: 'p' }, { file: 'prompts/analysis_churn.md' }));
      expect(error.message).toBe('prompts/analysis_churn.md uses {{ABSENT}} but no value was provided for it');
      expect(error.details).toMatchObject({ file: 'prompts/analysis_churn.md', field: 'ABSENT' });
    });

    it('treats an inherited property name as missing', () => {
      expect(() => renderTemplate('{{CONSTRUCTOR}}', Object.create({ CONSTRUCTOR: 'x' }) as Record<string, string>)).toThrow(PackError);
    });
  });

  describe('when an allow-list is given', () => {
    it('throws for a variable outside it even when a value was passed', () => {
      const error = thrown(() => renderTemplate('{{FOO}}', { FOO: 'x' }, { file: 'prompts/exploration.md', allowed: ['DATASET'] }));
      expect(error.message).toBe('prompts/exploration.md uses unknown variable {{FOO}} (allowed here: {{DATASET}})');
    });

    it('says "none" for a kind that allows no variables', () => {
      const error = thrown(() => assertTemplateVariables('{{X}}', { file: 'prompts/exploration_context_idle.md', allowed: [] }));
      expect(error.message).toContain('(allowed here: none)');
    });
  });
});
