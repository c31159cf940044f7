import { Controller, Headers, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { WebhooksService } from './webhooks.service';

class ReceivedDto {
  @ApiProperty({ enum: [true] }) received: true;
}

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
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post(['api/webhooks/payment', 'api/payment/webhooks'])
  @HttpCode(200)
  // Lower case, as `@Headers` reads them, so the OpenAPI document lists each header once.
  @ApiHeader({ name: 'stripe-signature', required: false, description: 'or payment-signature' })
  @Endpoint({
    summary: 'Receive a payment processor event',
    access: 'public',
    errors: [
      { status: 400, description: 'Bad or missing signature (`WEBHOOK_SIGNATURE_INVALID`)' },
      { status: 500, description: 'A handler failed (`WEBHOOK_HANDLER_FAILED`); redelivered' },
    ],
  })
  @ApiBody({
    description: 'The event exactly as the processor signed it (read raw, any content type)',
    schema: { type: 'object', additionalProperties: true },
    examples: {
      example: {
        value: {
          id: 'evt_1PqExample',
          type: 'payment_intent.succeeded',
          data: {
            object: {
              id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
              metadata: {
                type: 'credit_purchase',
                userId: '6c1f1f9e-0a4e-4bd5-9a53-0d6f3b0d2c71',
                credits: '1000',
              },
            },
          },
        },
      },
    },
  })
  @ApiOkResponse({ type: ReceivedDto })
  async receive(
    @Req() req: RawBodyRequest<Request>,
    @Headers('stripe-signature') stripeSignature?: string,
    @Headers('payment-signature') paymentSignature?: string,
  ): Promise<{ received: true }> {
    return this.webhooks.receive(await rawBodyOf(req), stripeSignature ?? paymentSignature);
  }
}
