import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { type AppError, COMMON_ERRORS } from '../../common/errors/app-error';
import { trackOutbound, watchOutboundRequests } from '../../common/http/outbound-failures';
import { ProviderError, UpstreamsBusyError } from '../providers/model-provider';
import { incompleteStream, notConfigured, toProviderError } from '../providers/sdk-errors';
import { AI_ERRORS } from '../ai.errors';
import { classifyProviderError } from './provider-errors';

const STATUSES = { ...COMMON_ERRORS, ...AI_ERRORS };
/** The status the error answers with: its override, else its code's. */
const statusOf = (err: AppError) =>
  err.statusOverride ?? STATUSES[err.code as keyof typeof STATUSES].status;

describe('classifyProviderError', () => {
  it.each([
    [401, 'INVALID_API_KEY', 401],
    [429, 'RATE_LIMIT', 429],
    [500, 'SERVICE_UNAVAILABLE', 500],
    [400, 'UNKNOWN_ERROR', 500],
    [503, 'UNKNOWN_ERROR', 500],
    [undefined, 'UNKNOWN_ERROR', 500],
  ])('upstream %s → %s / %i', (upstream, code, status) => {
    const err = classifyProviderError(
      new ProviderError('anthropic', upstream, 'body with sk-secret'),
    );
    expect(err.code).toBe(code);
    expect(statusOf(err)).toBe(status);
    expect(err.message).not.toContain('sk-secret');
  });

  it('answers a call with no HTTP answer (refused, broken, timed out) as UPSTREAM_UNREACHABLE 502', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), {
        code: 'ECONNREFUSED',
      }),
    });
    const timedOut = Object.assign(new Error('The operation timed out'), { name: 'TimeoutError' });
    for (const err of [
      toProviderError('openai', 'OpenAI', refused, undefined),
      toProviderError('google', 'Gemini', timedOut, undefined),
      toProviderError('anthropic', 'Anthropic', new Error('x'), undefined, { timedOut: true }),
    ]) {
      const classified = classifyProviderError(err);
      expect([classified.code, statusOf(classified)]).toEqual(['UPSTREAM_UNREACHABLE', 502]);
    }
  });

  it('keeps UNKNOWN_ERROR for a cut stream, a missing key and our own abort', () => {
    const aborted = new AbortController();
    aborted.abort();
    for (const err of [
      incompleteStream('openai', 'OpenAI', undefined),
      notConfigured('openai', 'OpenAI'),
      toProviderError('openai', 'OpenAI', new Error('x'), aborted.signal),
    ]) {
      expect(classifyProviderError(err).code).toBe('UNKNOWN_ERROR');
    }
  });

  it('within a request, tells a refused connection from an answer that broke off', async () => {
    watchOutboundRequests();
    const server = createServer((_req, res) => {
      res.writeHead(200).write('partial');
      setImmediate(() => res.socket?.destroy());
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const classifyFetch = (url: string) =>
      new Promise<string>((done) =>
        trackOutbound(
          {} as Request,
          {} as Response,
          (() =>
            fetch(url)
              .then((r) => r.text())
              .then(() => done('answered'))
              .catch((err: unknown) =>
                done(
                  classifyProviderError(toProviderError('openai', 'OpenAI', err, undefined)).code,
                ),
              )) as NextFunction,
        ),
      );
    try {
      expect(await classifyFetch(`http://127.0.0.1:${port}/`)).toBe('UNKNOWN_ERROR');
    } finally {
      await new Promise((done) => server.close(done));
    }
    expect(await classifyFetch(`http://127.0.0.1:${port}/`)).toBe('UPSTREAM_UNREACHABLE');
  });

  it('answers our upstreams’ ceilings as RATE_LIMIT with the next minute as resetsAt', () => {
    const err = classifyProviderError(
      new UpstreamsBusyError('openai', new Date('2026-11-26T21:00:00Z')),
    );
    expect([err.code, statusOf(err)]).toEqual(['RATE_LIMIT', 429]);
    expect(err.details).toEqual({ resetsAt: '2026-11-26T21:00:00.000Z' });
  });
});
