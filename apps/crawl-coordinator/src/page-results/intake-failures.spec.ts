import { IntakeFailures } from './intake-failures';

describe(IntakeFailures.name, () => {
  it('gives a crawl up after `limit` failures in a row, and a success starts the count again', () => {
    const failures = new IntakeFailures(3);
    expect(failures.failed('a')).toBe(false);
    expect(failures.failed('a')).toBe(false);
    failures.succeeded('a');
    expect(failures.failed('a')).toBe(false);
    expect(failures.failed('b')).toBe(false);
    expect(failures.failed('a')).toBe(false);
    expect(failures.failed('a')).toBe(true);
    expect(failures.failed('a')).toBe(false);
  });
});
