import { parsePage } from '../parsed-page';
import { extractMenus } from './menus';

describe(extractMenus.name, () => {
  it('answers each navigation menu with its label and items, submenus folded into their menu', () => {
    const html = `<header><nav aria-label="Main"><ul>
        <li><a href="/">Home</a></li>
        <li><a href="/shop">Shop</a><ul role="menu"><li><a href="/shop/coats">Coats</a></li></ul></li>
        <li><a href="/">Home</a></li></ul></nav></header>
      <h2 id="acc">Account</h2><div role="menubar" aria-labelledby="acc">
        <button role="menuitem">Sign out</button><span role="menuitem"><a href="/orders">Orders</a></span></div>
      <nav><a href="#top">Top</a></nav>`;
    expect(extractMenus(parsePage(html, 'https://shop.test/'))).toEqual([
      {
        label: 'Main',
        items: [
          { text: 'Home', url: 'https://shop.test/' },
          { text: 'Shop', url: 'https://shop.test/shop' },
          { text: 'Coats', url: 'https://shop.test/shop/coats' },
        ],
      },
      {
        label: 'Account',
        items: [
          { text: 'Sign out', url: null },
          { text: 'Orders', url: 'https://shop.test/orders' },
        ],
      },
    ]);
  });
});
