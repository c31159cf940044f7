import { Controller, Headers, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../common/auth/auth.decorators';
import { ApiErrors } from '../common/openapi/api-errors';
import { WebhooksService } from './webhooks.service';

/** Largest webhook body read when no JSON parser ran (same as the JSON limit). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The raw body as received: the JSON parser keeps it as `rawBody` (rawBody: true in main.ts);
 * any other content type is read from the stream here. Undefined when over 1 MB.
 */
async function rawBodyOf(req: RawBodyRequest<Request>): Promise<Buffer | undefined> {
  if (req.rawBody) return req.rawBody;
  if (req.readableEnded) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Spec "Events" / "Webhook paths": the processor posts to `/api/webhooks/payment` or its alias
 * `/api/payment/webhooks`. Public; authenticated by the signature in `Stripe-Signature` (or the
 * spec's `payment-signature`). 200 `{received: true}`, 400 `{error}` for a bad signature, 500
 * `{error}` when the handler fails (the processor retries).
 */
@ApiTags('webhooks')
@Public()
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post(['api/webhooks/payment', 'api/payment/webhooks'])
  @HttpCode(200)
  // Lower case, as `@Headers` reads them, so the OpenAPI document lists each header once.
  @ApiHeader({ name: 'stripe-signature', required: false, description: 'or payment-signature' })
  @ApiOkResponse({ schema: { example: { received: true } } })
  @ApiErrors(400, 500)
  async receive(
    @Req() req: RawBodyRequest<Request>,
    @Headers('stripe-signature') stripeSignature?: string,
    @Headers('payment-signature') paymentSignature?: string,
  ): Promise<{ received: true }> {
    return this.webhooks.receive(await rawBodyOf(req), stripeSignature ?? paymentSignature);
  }
}
