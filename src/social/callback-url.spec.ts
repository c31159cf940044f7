import { safeCallbackUrl } from './callback-url';

const BASE = 'http://localhost:3000';
const CORS = ['http://app.test:5173', 'not a url'];
const check = (raw: unknown) => safeCallbackUrl(raw, BASE, CORS);

describe('safeCallbackUrl (no open redirect after social login)', () => {
  it.each([
    ['/dashboard/settings?tab=2#x', '/dashboard/settings?tab=2#x'],
    ['/', '/'],
    ['/a/../dashboard', '/dashboard'],
    ['http://localhost:3000/dashboard', 'http://localhost:3000/dashboard'],
    ['http://LOCALHOST:3000/chat?id=1', 'http://localhost:3000/chat?id=1'],
    ['http://app.test:5173/chat/1', 'http://app.test:5173/chat/1'],
  ])('accepts %s as %s', (raw, expected) => {
    expect(check(raw)).toBe(expected);
  });

  it.each([
    'https://evil.example.com/steal',
    '//evil.example.com/x',
    '///evil.example.com',
    '/\\evil.example.com',
    '/x\\y',
    '\\\\evil.example.com',
    'javascript:alert(1)',
    'data:text/html,hi',
    'http://localhost:3000@evil.example.com/',
    'http://user:pw@localhost:3000/dashboard',
    'https://localhost:3000/dashboard',
    'http://localhost:3001/dashboard',
    'http://app.test:5174/chat',
    'http://sub.app.test:5173/',
    '/dash\tboard',
    'dashboard',
    '',
    '/' + 'a'.repeat(2048),
    undefined,
    ['/dashboard'],
    42,
  ])('refuses %p', (raw) => {
    expect(check(raw)).toBeUndefined();
  });
});
