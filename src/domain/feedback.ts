import { z } from 'zod';

export const feedbackSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  run_id: z.string(),
  target_type: z.enum(['insight', 'recommendation', 'exploration_step']),
  target_id: z.string(),
  rating: z.enum(['like', 'dislike']),
  comment: z.string().default(''),
  created_at: z.string(),
});
export type Feedback = z.infer<typeof feedbackSchema>;
