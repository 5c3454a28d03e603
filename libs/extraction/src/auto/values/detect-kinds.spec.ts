import { detectKinds } from './detect-kinds';

describe(detectKinds.name, () => {
  it.each([
    ['€19,99', ['price']],
    ['$1,299', ['price']],
    ['1.299,00 €', ['price']],
    ['Now $15.00', ['price']],
    ['19.99', ['price', 'number']],
    ['2024-03-01', ['date']],
    ['March 3, 2024', ['date']],
    ['Published on 3 mars 2024', ['date']],
    ['12/03/2024', ['date']],
    ['4006381333931', ['gtin', 'number']],
    ['4.5 out of 5', ['rating']],
    ['4.5 stars', ['rating']],
    ['Call 555-1234', ['phone']],
    ['+1 (555) 123-4567', ['phone']],
    ['sales@example.com', ['email']],
    ['https://cdn.example.com/img/p1.jpg?w=300', ['image_url', 'url']],
    ['https://example.com/p/1', ['url']],
    ['http://schema.org/InStock', ['availability']],
    ['In stock', ['availability']],
    ['Nicht verfügbar', ['availability']],
    ['EUR', ['currency']],
    ['€', ['currency']],
    ['2024', ['number']],
    ['1,299', ['number']],
    ['123', ['number']],
    ['Deluxe kettle', ['text']],
    ['Free shipping on orders over $50 this weekend only', ['text']],
    ['Copyright 2024 Acme Inc.', ['text']],
    ['B07FW264WL', ['text']],
    ['4006381333932', ['number']],
  ])('reads %p as %p', (text, kinds) => {
    expect(detectKinds(text)).toEqual(kinds);
  });

  it('answers nothing for empty text and only text for prose', () => {
    expect(detectKinds('  ')).toEqual([]);
    expect(detectKinds('In stock. '.repeat(40))).toEqual(['text']);
  });

  // Its speed is a bench figure (the recipe apply time of `make bench`, which detects every slot's
  // kinds), not a timed unit test: a busy machine must not fail a suite.
});
