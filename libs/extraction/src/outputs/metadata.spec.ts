import { parsePage } from '../parsed-page';
import { extractMetadata } from './metadata';

describe(extractMetadata.name, () => {
  it('reads title, description, canonical, lang, named meta, Open Graph, Twitter, JSON-LD and alternates', () => {
    const html = `<!doctype html><html lang="en-GB"><head>
      <title>  Parka |
        Shop </title>
      <meta name="description" content="A warm parka.">
      <meta name="Keywords" content="coat, parka"><meta name="robots" content="index,follow"><meta name="viewport" content="">
      <link rel="canonical" href="/p/parka">
      <link rel="alternate" hreflang="de" href="/de/p/parka"><link rel="alternate" type="application/rss+xml" href="/feed">
      <meta property="og:title" content="Parka"><meta property="og:image" content="/img/1.jpg">
      <meta property="og:image" content="https://cdn.shop.test/2.jpg"><meta property="product:price:amount" content="120">
      <meta name="twitter:card" content="summary"><meta property="twitter:image" content="img/t.jpg">
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Parka"}</script>
      <script type="application/ld+json">[{"@type":"BreadcrumbList"},{"@type":"Organization"}]</script>
      <script type="application/ld+json"><!-- {"@type":"WebSite"} --></script>
      <script type="application/ld+json">{ not json </script>
    </head><body></body></html>`;
    expect(extractMetadata(parsePage(html, 'https://shop.test/p/parka?ref=x'))).toEqual({
      title: 'Parka | Shop',
      description: 'A warm parka.',
      canonical: 'https://shop.test/p/parka',
      lang: 'en-GB',
      meta: { keywords: 'coat, parka', robots: 'index,follow' },
      open_graph: {
        'og:title': 'Parka',
        'og:image': ['https://shop.test/img/1.jpg', 'https://cdn.shop.test/2.jpg'],
        'product:price:amount': '120',
      },
      twitter: { 'twitter:card': 'summary', 'twitter:image': 'https://shop.test/p/img/t.jpg' },
      json_ld: [
        { '@context': 'https://schema.org', '@type': 'Product', name: 'Parka' },
        { '@type': 'BreadcrumbList' },
        { '@type': 'Organization' },
        { '@type': 'WebSite' },
      ],
      alternates: [{ hreflang: 'de', url: 'https://shop.test/de/p/parka' }],
    });
  });

  it('answers a fixed shape for a page without metadata', () => {
    expect(extractMetadata(parsePage('<p>bare</p>', 'https://shop.test/'))).toEqual({
      title: null,
      description: null,
      canonical: null,
      lang: null,
      meta: {},
      open_graph: {},
      twitter: {},
      json_ld: [],
      alternates: [],
    });
  });
});
