import { encodeFetchOptions, proxyModeUrl } from './fetch';

describe(encodeFetchOptions.name, () => {
  it('serialises JSON parameters and joins lists', () => {
    expect(
      encodeFetchOptions({
        js_render: true,
        css_extractor: { title: 'h1' },
        js_instructions: [{ click: '#more' }, { wait: 500 }],
        outputs: ['emails', 'links'],
        wait: undefined,
      }),
    ).toEqual({
      js_render: true,
      css_extractor: '{"title":"h1"}',
      js_instructions: '[{"click":"#more"},{"wait":500}]',
      outputs: ['emails', 'links'],
    });
  });
});

describe(proxyModeUrl.name, () => {
  it('puts the key as user and the options as password', () => {
    const url = new URL(proxyModeUrl('key/1', { js_render: true, proxy_country: 'de' }, { host: 'trawl.internal' }));
    expect([decodeURIComponent(url.username), decodeURIComponent(url.password), url.host]).toEqual([
      'key/1',
      'js_render=true&proxy_country=de',
      'trawl.internal:8001',
    ]);
  });
});
