import type { Request } from 'express';
import { apiKeyHeaderAsBearer } from './jwt-auth.guard';

const request = (path: string, headers: Record<string, string>) =>
  ({ path, headers: { ...headers } }) as unknown as Request;

describe('x-api-key on /v1', () => {
  it('reads the key as a Bearer token under /v1', () => {
    const req = request('/v1/messages', { 'x-api-key': 'sk-abc' });
    apiKeyHeaderAsBearer(req);
    expect(req.headers.authorization).toBe('Bearer sk-abc');
  });

  it('leaves an Authorization header as sent', () => {
    const req = request('/v1/messages', { 'x-api-key': 'sk-abc', authorization: 'Bearer sk-def' });
    apiKeyHeaderAsBearer(req);
    expect(req.headers.authorization).toBe('Bearer sk-def');
  });

  it('ignores the header outside /v1', () => {
    const req = request('/api/chats', { 'x-api-key': 'sk-abc' });
    apiKeyHeaderAsBearer(req);
    expect(req.headers.authorization).toBeUndefined();
  });
});
