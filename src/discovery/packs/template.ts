/**
 * The strict prompt template renderer: `{{NAME}}` placeholders only, every one must have a value,
 * values are inserted literally in a single pass (a value that itself contains `{{X}}` stays as is).
 */
import { PackError } from '../../errors/index.js';

/** Any `{{…}}` without braces inside; the content is then checked against the variable-name rule. */
const PLACEHOLDER = /\{\{([^{}\n]{0,80})\}\}/g;
const VARIABLE_NAME = /^[A-Z][A-Z0-9_]*$/;

export interface TemplateOptions {
  /** The file the template came from, used in error messages (e.g. `prompts/exploration.md`). */
  file?: string;
  /** When given, a placeholder outside this list is an unknown variable even if a value was passed. */
  allowed?: readonly string[];
}

interface Placeholder {
  raw: string;
  name: string;
}

function placeholders(template: string): Placeholder[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => ({ raw: match[0], name: match[1] ?? '' }));
}

function where(options: TemplateOptions | undefined): string {
  return options?.file ?? 'template';
}

function assertWellFormed(placeholder: Placeholder, options: TemplateOptions | undefined): void {
  if (!VARIABLE_NAME.test(placeholder.name)) {
    throw new PackError(`${where(options)} has a malformed placeholder ${placeholder.raw} (variables are {{UPPER_SNAKE_CASE}})`, {
      file: options?.file,
      field: placeholder.raw,
    });
  }
}

function assertAllowed(name: string, options: TemplateOptions | undefined): void {
  if (options?.allowed && !options.allowed.includes(name)) {
    const allowed = options.allowed.length === 0 ? 'none' : options.allowed.map((variable) => `{{${variable}}}`).join(', ');
    throw new PackError(`${where(options)} uses unknown variable {{${name}}} (allowed here: ${allowed})`, {
      file: options.file,
      field: name,
    });
  }
}

/** The distinct variable names a template uses, in order of first use. Throws on a malformed placeholder. */
export function templateVariables(template: string, options?: Pick<TemplateOptions, 'file'>): string[] {
  const names: string[] = [];
  for (const placeholder of placeholders(template)) {
    assertWellFormed(placeholder, options);
    if (!names.includes(placeholder.name)) names.push(placeholder.name);
  }
  return names;
}

/** Checks a template against the variables its kind may use, without rendering it. */
export function assertTemplateVariables(template: string, options: TemplateOptions & { allowed: readonly string[] }): string[] {
  const names = templateVariables(template, options);
  for (const name of names) assertAllowed(name, options);
  return names;
}

/**
 * Substitutes every `{{NAME}}` with `vars[NAME]`. Throws a PackError naming the file and the variable
 * when the template uses a variable outside `options.allowed` or one that `vars` has no value for:
 * a missing value is a bug in the caller, never a silent empty string.
 */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>, options?: TemplateOptions): string {
  const names = options?.allowed
    ? assertTemplateVariables(template, { ...options, allowed: options.allowed })
    : templateVariables(template, options);
  for (const name of names) {
    if (!Object.hasOwn(vars, name)) {
      throw new PackError(`${where(options)} uses {{${name}}} but no value was provided for it`, { file: options?.file, field: name });
    }
  }
  return template.replace(PLACEHOLDER, (_raw, name: string) => String(vars[name]));
}
