import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { aiConfig } from '../ai.config';
import { ValidationFailedError } from '../../common/validation/validation.pipe';
import type { ParameterName, ParameterValues } from '../../models/dto/model-parameters.dto';
import {
  maxReplyTokens,
  type ModelDescriptor,
  reasoningBudget,
} from '../../models/model-catalogue';
import type { NumberRange, ParameterSource } from '../../models/model-parameters';
import { PLANS, type Plan } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';

/**
 * A call that follows its caller's plan for output tokens, as the wire protocols (`/v1`) do,
 * instead of the spec's cap (AdmitOptions.outputLimits).
 */
export interface PlanOutputLimits {
  by: 'plan';
  /** The request field that carried `maxTokens` (e.g. `max_tokens`), named in a refusal. */
  param: string;
}

/** Visible output tokens a plan-limited call gets when it asks for none (within its caps). */
export const PLAN_DEFAULT_MAX_TOKENS = 4096;

/**
 * The output-token limits of a call. The spec's routes: `maxTokens` within the model's
 * `parameters.maxTokens` (MAX_OUTPUT_TOKENS, default 1000, within the model's maximum), 1000 by
 * default. Plan-limited calls: within the plan's cap (PLAN_MAX_OUTPUT_TOKENS) and the model's
 * maximum less its reasoning budget, 4096 by default within both.
 */
@Injectable()
export class OutputLimits {
  private readonly planCaps: Record<Plan, number | null>;

  constructor(
    @Inject(aiConfig.KEY) ai: ConfigType<typeof aiConfig>,
    private readonly users: UsersService,
  ) {
    this.planCaps = ai.planMaxOutputTokens;
  }

  /**
   * Settles `values.maxTokens` for a call to `model`: a default (source `default`) becomes 4096
   * for a plan-limited call, and is lowered to the limit; a value asked for above a plan-limited
   * call's limit is refused. Returns the `maxTokens` range to check the values against
   * (checkParameters refuses the spec's routes' values out of range). Throws VALIDATION_FAILED
   * (400, the violation on `limits.param`, constraint `planLimit` or `modelRange`, the message
   * naming the limit). The caller's plan comes with the session or the API key; one query reads
   * it for callers without one (generations outside a request).
   */
  async apply(
    user: { id: string; plan?: string },
    model: ModelDescriptor,
    values: ParameterValues & { maxTokens: number },
    sources: Partial<Record<ParameterName, ParameterSource>>,
    limits: PlanOutputLimits | undefined,
  ): Promise<NumberRange> {
    const range = limits
      ? { min: 1, max: await this.planLimit(user, model, limits, values.maxTokens, sources) }
      : model.parameters.maxTokens;
    // The spec's default (1000) stays; a lower limit lowers it.
    if (sources.maxTokens === 'default')
      values.maxTokens = Math.min(limits ? PLAN_DEFAULT_MAX_TOKENS : values.maxTokens, range.max);
    return range;
  }

  /**
   * The plan-limited maximum of `model` for the user (plan cap within the model's maximum);
   * throws when `asked` (not a default) exceeds it.
   */
  private async planLimit(
    user: { id: string; plan?: string },
    model: ModelDescriptor,
    limits: PlanOutputLimits,
    asked: number,
    sources: Partial<Record<ParameterName, ParameterSource>>,
  ): Promise<number> {
    const stored = user.plan ?? (await this.users.get(user.id)).plan;
    // A plan this version does not know is limited as FREE (as the daily limit is).
    const plan: Plan = PLANS.includes(stored as Plan) ? (stored as Plan) : 'FREE';
    const cap = this.planCaps[plan];
    const modelMax = maxReplyTokens(model);
    const max = cap === null ? modelMax : Math.min(cap, modelMax);
    if (sources.maxTokens === 'default' || asked <= max) return max;
    const byPlan = max < modelMax;
    const budget = reasoningBudget(model);
    const message = byPlan
      ? `${limits.param} is too large: ${asked}. Your plan (${plan}) allows at most ${max} ` +
        `output tokens per request`
      : `${limits.param} is too large: ${asked}. ${model.id} supports at most ${max} output ` +
        `tokens` +
        (budget ? ` (its reasoning budget of ${budget} tokens comes on top)` : '');
    throw new ValidationFailedError([
      { property: limits.param, constraint: byPlan ? 'planLimit' : 'modelRange', message },
    ]);
  }
}
