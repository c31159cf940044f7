import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import OpenAI from 'openai';
import type { AppConfig } from '../../config/app.config';
import {
  type GenerateRequest,
  type GenerateResult,
  type ModelProvider,
  ProviderError,
} from './model-provider';
import { normaliseOpenAiUsage } from './openai.usage';

/**
 * Adapter over the official `openai` SDK (chat completions). OPENAI_BASE_URL replaces the
 * SDK's host, so any OpenAI-compatible server works. No SDK retries: a failed call is not charged.
 */
@Injectable()
export class OpenAiProvider implements ModelProvider {
  private readonly client: OpenAI | undefined;

  constructor(config: ConfigService<AppConfig, true>) {
    const { apiKey, baseUrl } = config.get('openai', { infer: true });
    this.client = apiKey
      ? new OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: 120_000 })
      : undefined;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    if (!this.client) throw new ProviderError('openai', undefined, 'OpenAI is not configured');
    try {
      const completion = await this.client.chat.completions.create(
        {
          model: req.model,
          messages: req.messages.map((m) => ({
            role: m.role as 'user' | 'assistant' | 'system',
            content: m.content,
          })),
          max_tokens: req.maxTokens,
        },
        { signal: req.signal },
      );
      const text = completion.choices[0]?.message?.content ?? '';
      const promptChars = req.messages.reduce((n, m) => n + m.content.length, 0);
      return {
        text,
        usage: normaliseOpenAiUsage(completion.usage, {
          promptChars,
          completionChars: text.length,
        }),
      };
    } catch (err) {
      const status = err instanceof OpenAI.APIError ? err.status : undefined;
      throw new ProviderError(
        'openai',
        status,
        `OpenAI request failed${status ? ` with status ${status}` : ''}`,
      );
    }
  }
}
