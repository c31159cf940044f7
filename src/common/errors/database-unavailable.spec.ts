import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    [
      'admin shutdown (57P01)',
      withCode('terminating connection due to administrator command', '57P01'),
    ],
    ['crash shutdown (57P02)', withCode('terminating connection because of crash', '57P02')],
    ['starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['class 08', withCode('connection failure', '08006')],
    ['lost connection', new Error('Connection terminated unexpectedly')],
    ['pool timeout', new Error('timeout exceeded when trying to connect')],
    [
      'a QueryFailedError around 57P01',
      new QueryFailedError('SELECT 1', [], withCode('terminating connection', '57P01')),
    ],
    ['a cause', new Error('outer', { cause: withCode('refused', 'ECONNREFUSED') })],
  ])('%s → true', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('duplicate key', '23505'))],
    ['a syntax error', withCode('syntax error at or near', '42601')],
    ['a plain error', new Error('boom')],
    ['a string', 'ECONNREFUSED'],
    ['undefined', undefined],
  ])('%s → false', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
