/**
 * The bounds of a run's step settings, in one place for every way a run is asked for: `assay run`
 * flags, API bodies and the config file. Each caller names the field its own way (`--max-steps`,
 * `max_steps`, `run.maxSteps`); the rule and its wording are the same everywhere.
 */
import { ValidationError } from '../errors/index.js';

/** A run this long already costs real money with a paid model; longer is almost certainly a typo. */
export const MAX_STEPS_LIMIT = 500;

export interface StepCountLimit {
  min: number;
  max: number;
}

export const STEP_LIMITS = {
  max_steps: { min: 1, max: MAX_STEPS_LIMIT },
  min_steps: { min: 0, max: MAX_STEPS_LIMIT },
} as const satisfies Record<string, StepCountLimit>;

export type StepSetting = keyof typeof STEP_LIMITS;

/** The rule, as the end of a sentence that starts with the field's name. */
export function stepCountRule(setting: StepSetting): string {
  const { min, max } = STEP_LIMITS[setting];
  return `must be a whole number from ${min} to ${max}`;
}

/** Whether `value` is an allowed count for `setting`. */
export function isStepCount(setting: StepSetting, value: number): boolean {
  const { min, max } = STEP_LIMITS[setting];
  return Number.isInteger(value) && value >= min && value <= max;
}

/**
 * Parses a count typed by a person (a CLI flag): digits only, within the limits, else a
 * `ValidationError` that names the flag and repeats what was typed.
 */
export function parseStepCount(setting: StepSetting, flag: string, text: string): number {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!isStepCount(setting, value)) {
    throw new ValidationError(`${flag} ${stepCountRule(setting)}, got "${text}"`, [{ path: flag, message: stepCountRule(setting) }]);
  }
  return value;
}

/** min_steps may not exceed max_steps; `names` says how the caller calls the two settings. */
export function assertStepBounds(
  maxSteps: number,
  minSteps: number,
  names: { maxSteps: string; minSteps: string } = { maxSteps: 'max_steps', minSteps: 'min_steps' },
): void {
  if (minSteps > maxSteps) {
    throw new ValidationError(`${names.minSteps} (${minSteps}) must not exceed ${names.maxSteps} (${maxSteps})`, [
      { path: names.minSteps, message: `greater than ${names.maxSteps} (${maxSteps})` },
    ]);
  }
}
