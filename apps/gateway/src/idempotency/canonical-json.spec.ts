import { bodyHash, canonicalJson } from './canonical-json';

describe(canonicalJson.name, () => {
  it('sorts keys at every level and leaves out undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
  });
});

describe(bodyHash.name, () => {
  it('is the same for bodies that differ only in key order', () => {
    expect(bodyHash({ url: 'x', max_items: 3 }).equals(bodyHash({ max_items: 3, url: 'x' }))).toBe(true);
  });

  it('differs when a value differs', () => {
    expect(bodyHash({ url: 'x', max_items: 3 }).equals(bodyHash({ url: 'x', max_items: 4 }))).toBe(false);
  });
});
