import type { Element } from 'domhandler';
import { collapseWhitespace, textOf } from '../dom';
import type { ParsedPage } from '../parsed-page';
import { linkOf } from './links';

/** One menu of the `menus` output. */
export interface MenuOutput {
  /** The menu's name from `aria-label` (or the text of `aria-labelledby`), else null. */
  label: string | null;
  /** Its entries in document order, deduplicated by text and URL. */
  items: MenuItemOutput[];
}

/** One entry of a menu. */
export interface MenuItemOutput {
  text: string;
  /** Absolute http(s) URL, or null for an entry that is not a link (a `role=menuitem` button). */
  url: string | null;
}

const MENU_ELEMENTS: ReadonlySet<string> = new Set(['nav', 'menu']);
const MENU_ROLES: ReadonlySet<string> = new Set(['navigation', 'menu', 'menubar']);

/**
 * `menus` output: the page's navigation menus — `<nav>`, `<menu>` and elements with role
 * `navigation`, `menu` or `menubar` — each with its links (`a[href]` as absolute http(s) URLs) and
 * its `role=menuitem` entries without a link. A menu inside another (a submenu) belongs to the
 * outer one's items, not to the list; menus without items are left out.
 */
export function extractMenus(page: ParsedPage): MenuOutput[] {
  const menus: MenuOutput[] = [];
  for (const element of page.elements()) {
    if (!isMenu(element) || hasMenuAncestor(element)) continue;
    const items = menuItems(page, element);
    if (items.length > 0) menus.push({ label: menuLabel(page, element), items });
  }
  return menus;
}

function menuItems(page: ParsedPage, menu: Element): MenuItemOutput[] {
  const items: MenuItemOutput[] = [];
  const seen = new Set<string>();
  page
    .$(menu)
    .find('a[href], [role="menuitem"]')
    .each((_, element) => {
      let item: MenuItemOutput;
      if (element.name === 'a' && element.attribs.href !== undefined) {
        const link = linkOf(page, element);
        if (link === undefined || link.text === '') return;
        item = { text: link.text, url: link.url };
      } else {
        // A menuitem wrapping a link is listed through the link.
        if (page.$(element).find('a[href]').length > 0) return;
        const text = textOf(element);
        if (text === '') return;
        item = { text, url: null };
      }
      const key = `${item.text}\u0000${item.url ?? ''}`;
      if (seen.has(key)) return;
      seen.add(key);
      items.push(item);
    });
  return items;
}

function isMenu(element: Element): boolean {
  return MENU_ELEMENTS.has(element.name) || MENU_ROLES.has(element.attribs.role?.trim().toLowerCase() ?? '');
}

function hasMenuAncestor(element: Element): boolean {
  for (let node = element.parent; node !== null && node.type === 'tag'; node = node.parent) {
    if (isMenu(node)) return true;
  }
  return false;
}

function menuLabel(page: ParsedPage, menu: Element): string | null {
  const label = menu.attribs['aria-label'];
  if (label !== undefined && label.trim() !== '') return collapseWhitespace(label);
  const labelledBy = menu.attribs['aria-labelledby']?.trim().split(/\s+/)[0];
  if (labelledBy) {
    const labelElement = page.$.root()
      .find(`[id="${labelledBy.replace(/["\\]/g, '\\$&')}"]`)
      .first()[0];
    if (labelElement) {
      const text = textOf(labelElement);
      if (text !== '') return text;
    }
  }
  return null;
}
