import { needsRendering } from './render-need';

describe('needsRendering', () => {
  const text = (n: number) => `<p>${'word '.repeat(n)}</p>`;

  it('is true when the rendered page shows the data the served one lacks', () => {
    expect(needsRendering('<div id="app"></div><script>render()</script>', `<div id="app">${text(100)}</div>`)).toBe(true);
    // A short product: name, price, a few facts.
    const shell = '<title>Shop</title><nav>Home</nav><div id="root"></div><script>var s="eyJuYW1lIjoiS2V0dGxlIn0="</script>';
    expect(
      needsRendering(
        shell,
        shell.replace(
          '<div id="root"></div>',
          '<div id="root"><h1>Blue kettle</h1><p>€19.99</p><p>SKU KK-3A0F · In stock · 4.5/5</p></div>',
        ),
      ),
    ).toBe(true);
  });

  it('is false when the server sent the data, even if a script adds a little', () => {
    expect(needsRendering(text(200), `${text(200)}<div>We use cookies to improve your visit. Accept them all?</div>`)).toBe(false);
    expect(needsRendering(text(200), text(260))).toBe(false);
  });
});
