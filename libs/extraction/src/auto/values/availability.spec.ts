import { parseAvailability } from './availability';

describe(parseAvailability.name, () => {
  it.each([
    ['http://schema.org/InStock', 'InStock'],
    ['https://schema.org/OutOfStock', 'OutOfStock'],
    ['schema:PreOrder', 'PreOrder'],
    ['InStock', 'InStock'],
    ['in_stock', 'InStock'],
    ['oos', 'OutOfStock'],
    ['http://schema.org/SoldOut', 'SoldOut'],
    ['https://schema.org/LimitedAvailability', 'LimitedAvailability'],
    ['In stock', 'InStock'],
    ['In Stock - ships in 2-3 days', 'InStock'],
    ['Only 3 left in stock', 'LimitedAvailability'],
    ['Add to cart', 'InStock'],
    ['ADD TO BASKET', 'InStock'],
    ['Out of stock', 'OutOfStock'],
    ['Currently unavailable.', 'OutOfStock'],
    ['Sold out', 'OutOfStock'],
    ['Pre-order now', 'PreOrder'],
    ['Discontinued', 'Discontinued'],
    ['Auf Lager', 'InStock'],
    ['Sofort lieferbar', 'InStock'],
    ['Nicht verfügbar', 'OutOfStock'],
    ['Derzeit nicht verfügbar', 'OutOfStock'],
    ['Ausverkauft', 'OutOfStock'],
    ['En stock', 'InStock'],
    ['Disponible', 'InStock'],
    ['Non disponible', 'OutOfStock'],
    ['Rupture de stock', 'OutOfStock'],
    ['Épuisé', 'OutOfStock'],
    ['Agotado', 'OutOfStock'],
    ['Available for pre-order', 'PreOrder'],
    ['Pre-order: ships next month', 'PreOrder'],
    ['Hurry, low stock', 'LimitedAvailability'],
    ['Only 2 left in stock', 'LimitedAvailability'],
    ['Last items', 'LimitedAvailability'],
    ['In stock – ready to ship', 'InStock'],
    ['Not available', 'OutOfStock'],
    ['No disponible', 'OutOfStock'],
    ['Op voorraad', 'InStock'],
    ['Niet op voorraad', 'OutOfStock'],
    ['På lager', 'InStock'],
    ['Нет в наличии', 'OutOfStock'],
    ['在庫あり', 'InStock'],
  ])('reads %p as %p', (text, expected) => {
    expect(parseAvailability(text)).toBe(expected);
  });

  it.each(['', 'Free delivery', 'Stockholm', 'Color: Blue', 'Availability'])('refuses %p', (text) => {
    expect(parseAvailability(text)).toBeUndefined();
  });
});
