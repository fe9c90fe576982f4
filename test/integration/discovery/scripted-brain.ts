/**
 * A scripted model for engine tests: it answers each phase from the prompt text, the way a remote
 * model would, with exploration actions taken from a script.
 */
import type { LlmRequest } from '../../../src/llm/port.js';

export type PhaseName = 'exploration' | 'analysis' | 'verification' | 'sql_fix' | 'recommendations' | 'unknown';

export function phaseOf(request: LlmRequest): PhaseName {
  const text = [request.system ?? '', ...request.messages.map((message) => message.content)].join('\n');
  if (text.includes('You are verifying one finding')) return 'verification';
  if (text.includes('A read-only SQL query failed')) return 'sql_fix';
  if (text.includes('Begin exploring the warehouse')) return 'exploration';
  if (text.includes('"recommendations"') && text.includes('INSIGHT') === false && /"recommendations"\s*:/.test(text))
    return 'recommendations';
  if (/"insights"\s*:/.test(text)) return 'analysis';
  return 'unknown';
}

/** The step number the model is about to take: one more than the last "Steps used" footer. */
export function nextStep(request: LlmRequest): number {
  const last = request.messages.at(-1)?.content ?? '';
  const match = /Steps used: (\d+) of/.exec(last) ?? /Step (\d+) result/.exec(last);
  return match ? Number(match[1]) + 1 : 1;
}

export interface ScriptOptions {
  /** Exploration replies by step number; missing steps answer done. */
  exploration: Record<number, string | (() => never)>;
  insightsFor?: (areaPrompt: string) => string;
  recommendations?: string;
}

export const QUERY_DEVICE = JSON.stringify({
  thinking: 'compare checkout completion by device',
  query_purpose: 'conversion: checkout abandonment by device',
  query:
    'SELECT device, COUNT(*) AS sessions, SUM(CASE WHEN reached_checkout AND NOT ordered THEN 1 ELSE 0 END) AS abandoned FROM main.sessions GROUP BY device ORDER BY device',
});

export const QUERY_REVENUE = JSON.stringify({
  thinking: 'monthly revenue trend',
  query_purpose: 'revenue: monthly order revenue',
  query:
    "SELECT date_trunc('month', ordered_at) AS month, COUNT(*) AS orders, SUM(amount) AS revenue FROM main.orders GROUP BY 1 ORDER BY 1",
});

export function scriptedBrain(options: ScriptOptions) {
  const calls: Record<PhaseName, number> = { exploration: 0, analysis: 0, verification: 0, sql_fix: 0, recommendations: 0, unknown: 0 };
  const brain = (request: LlmRequest): string => {
    const phase = phaseOf(request);
    calls[phase]++;
    switch (phase) {
      case 'exploration': {
        const reply = options.exploration[nextStep(request)];
        if (typeof reply === 'function') return reply();
        return reply ?? '{"done": true, "summary": "covered"}';
      }
      case 'sql_fix':
        return '```sql\nSELECT device, COUNT(*) AS sessions FROM main.sessions GROUP BY device ORDER BY device\n```';
      case 'analysis': {
        const prompt = request.messages.at(-1)?.content ?? '';
        if (options.insightsFor) return options.insightsFor(prompt);
        const area = /\*\*Funnel Conversion\*\*|Funnel Conversion/.test(prompt) ? 'conversion' : 'other';
        if (area !== 'conversion') return '{"insights": []}';
        return JSON.stringify({
          insights: [
            {
              name: 'Mobile checkout abandonment is high',
              description: 'Mobile sessions abandon checkout far more than desktop.',
              severity: 'high',
              affected_count: 120,
              confidence: 0.8,
              source_steps: [2],
              metrics: { segment: 'mobile' },
              // the abandonment at checkout, mobile against desktop: 80% vs 0% in the harness shop, stated as 60%
              claim: {
                kind: 'difference',
                metric: {
                  kind: 'rate',
                  table: 'main.sessions',
                  condition: { column: 'ordered', op: '=', value: false },
                  filters: [{ column: 'reached_checkout', op: '=', value: true }],
                  label: 'checkout abandonment rate',
                },
                segment: { column: 'device', value: 'mobile' },
                comparison: { kind: 'rest' },
                value: 0.6,
                comparison_value: 0,
                direction: 'higher',
              },
            },
          ],
        });
      }
      case 'recommendations':
        return (
          options.recommendations ??
          JSON.stringify({
            recommendations: [
              {
                title: 'Simplify mobile checkout',
                description: 'One-page checkout on mobile.',
                priority: 1,
                segment_size: 100,
                related_insight_ids: ['conversion-1', 'ghost-9'],
                effort: 'medium',
                success_metrics: ['mobile checkout completion'],
              },
            ],
          })
        );
      default:
        return 'I am not sure what you want.';
    }
  };
  return { brain, calls };
}
