import { chatById, chatPageSql, chatsOf } from './chat-list.sql';
import { saveExchangePart } from './chat-exchange.sql';

/** The highest `$n` in `sql` (0 when there is none). */
const highest = (sql: string) => Math.max(0, ...[...sql.matchAll(/\$(\d+)/g)].map((m) => +m[1]));

describe('chat statements built with SqlParams', () => {
  const user = '00000000-0000-4000-8000-000000000001';
  const cursor = { at: new Date(0), id: '00000000-0000-4000-8000-000000000002' };

  it.each([
    ['own chats', chatsOf(user, [], []), undefined],
    ['team chats and tags, after a cursor', chatsOf(user, ['t'], ['a', 'a', 'b']), cursor],
    ['one chat', chatById(user), undefined],
  ])('chat page (%s): one parameter per placeholder, the limit last', (_, filter, at) => {
    const q = chatPageSql(filter, user, at, 21, 5);
    expect(highest(q.sql)).toBe(q.params.length);
    expect(q.sql).toMatch(new RegExp(`LIMIT \\$${q.params.length}$`));
    expect(q.params[q.params.length - 1]).toBe(21);
  });

  it.each([
    ['a new chat', { messages: [{ role: 'user', content: 'hi', uploadIds: ['u'] }], reply: 'yo' }],
    [
      'a continued chat',
      { chatId: user, messages: [{ role: 'user', content: 'hi' }], reply: 'yo' },
    ],
  ])('saved exchange (%s): placeholders from $first, one parameter each', (_, input) => {
    const part = saveExchangePart(user, input, 'New chat', 9);
    const used = new Set([...part.ctes.matchAll(/\$(\d+)/g)].map((m) => +m[1]));
    expect([...used].sort((a, b) => a - b)).toEqual(part.params.map((_, i) => 9 + i));
  });
});
