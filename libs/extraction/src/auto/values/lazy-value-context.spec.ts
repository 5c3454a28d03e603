import { LazyValueContext } from './lazy-value-context';

describe(LazyValueContext.name, () => {
  it('works the decimal mark out on first use, once', () => {
    const find = jest.fn(() => ',' as const);
    const context = new LazyValueContext(new URL('https://shop.test/'), 'de', find);
    expect(find).not.toHaveBeenCalled();
    expect(context.decimalMark).toBe(',');
    expect(context.decimalMark).toBe(',');
    expect(find).toHaveBeenCalledTimes(1);
    expect([context.pageUrl?.host, context.lang]).toEqual(['shop.test', 'de']);
  });

  it('remembers that a page has no decimal mark', () => {
    const find = jest.fn(() => undefined);
    const context = new LazyValueContext(undefined, undefined, find);
    expect(context.decimalMark).toBeUndefined();
    expect(context.decimalMark).toBeUndefined();
    expect(find).toHaveBeenCalledTimes(1);
  });
});
