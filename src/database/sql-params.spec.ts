import { SqlParams } from './sql-params';

describe('SqlParams', () => {
  it('returns $1, $2, … in the order values are added, and keeps the values in that order', () => {
    const p = new SqlParams();
    expect([p.add('a'), p.add(2), p.add(null)]).toEqual(['$1', '$2', '$3']);
    expect(p.values).toEqual(['a', 2, null]);
  });

  it('numbers a part after the host statement’s placeholders, holding only its own values', () => {
    const p = new SqlParams(8);
    expect(p.add('x')).toBe('$9');
    expect(p.values).toEqual(['x']);
  });
});
