import { type CamelCaseRow, selectColumns } from './columns';

describe(selectColumns.name, () => {
  it('lists the columns as they are named when given neither alias nor camelCase', () => {
    expect(selectColumns(['id', 'tenant_id'])).toBe('id, tenant_id');
  });

  it('prefixes each column with the table alias', () => {
    expect(selectColumns(['id', 'item_seq'], { alias: 'f' })).toBe('f.id, f.item_seq');
  });

  it('selects a snake_case column under its camelCase alias, and a one-word column as is', () => {
    expect(selectColumns(['id', 'tenant_id', 'pages_dispatched', 'trace_parent'], { camelCase: true })).toBe(
      'id, tenant_id AS "tenantId", pages_dispatched AS "pagesDispatched", trace_parent AS "traceParent"',
    );
    expect(selectColumns(['scope_domain'], { alias: 'c', camelCase: true })).toBe('c.scope_domain AS "scopeDomain"');
  });

  it('renames the row type the way it renames the columns', () => {
    const row: CamelCaseRow<{ id: string; tenant_id: string; max_items: number }> = { id: 'a', tenantId: 'b', maxItems: 1 };
    expect(Object.keys(row)).toEqual(['id', 'tenantId', 'maxItems']);
  });
});
