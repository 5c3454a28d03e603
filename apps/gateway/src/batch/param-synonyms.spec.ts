import { withSpecParamName } from './param-synonyms';

describe(withSpecParamName.name, () => {
  it('renames the synonym and keeps every other field', () => {
    expect(withSpecParamName({ url: 'https://a.test/', zenrows_params: { js_render: true } })).toEqual({
      url: 'https://a.test/',
      service_params: { js_render: true },
    });
  });

  it('leaves an object without it as the very same object (100,000 tasks are not copied)', () => {
    const task = { url: 'https://a.test/', service_params: {} };
    expect(withSpecParamName(task)).toBe(task);
  });

  it('answers undefined for both names, and leaves what is no object to the schema', () => {
    expect(withSpecParamName({ service_params: {}, zenrows_params: {} })).toBeUndefined();
    for (const value of ['x', null, [1], 3]) expect(withSpecParamName(value)).toBe(value);
  });
});
