/** `tenant_id` → `tenantId`: a column's name as a camelCase alias. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A row whose columns were selected under their camelCase aliases (`selectColumns(…, { camelCase: true })`). */
export type CamelCaseRow<Row> = { [K in keyof Row & string as CamelCase<K>]: Row[K] };

/**
 * The text of a SELECT list of a table's columns, each name checked against the table's row type,
 * built once at module load (the statement's text is the same as if written by hand).
 *
 * @param columns the table's columns, in the order to select them
 * @param options `alias`: the table's alias in the statement (`c` → `c.url`); `camelCase`: select
 *   each column under its camelCase alias (`tenant_id AS "tenantId"`), for rows read as `CamelCaseRow`
 */
export function selectColumns<Column extends string>(
  columns: readonly Column[],
  options: { alias?: string; camelCase?: boolean } = {},
): string {
  const prefix = options.alias ? `${options.alias}.` : '';
  return columns
    .map((column) => {
      const alias = options.camelCase ? camelCase(column) : column;
      return alias === column ? `${prefix}${column}` : `${prefix}${column} AS "${alias}"`;
    })
    .join(', ');
}

function camelCase(column: string): string {
  return column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The column names of a table, from an object naming each column of its row type once: the
 * compiler refuses a missing or unknown one, so the list (which tests compare with the database)
 * is the row type's.
 */
export function columnNames<Row>(columns: { [K in keyof Row & string]: true }): (keyof Row & string)[] {
  return Object.keys(columns) as (keyof Row & string)[];
}

/** The columns of `Row` whose type admits `null`. */
export type NullableColumn<Row> = { [K in keyof Row & string]: null extends Row[K] ? K : never }[keyof Row & string];

/**
 * The nullable column names of a table, from an object naming each column whose row type admits
 * `null` once: the compiler refuses a missing one or any other, so the list (which tests compare
 * with the database's `NOT NULL`s) is the row type's.
 */
export function nullableColumnNames<Row>(columns: { [K in NullableColumn<Row>]: true }): NullableColumn<Row>[] {
  return Object.keys(columns) as NullableColumn<Row>[];
}

/** `true` when `A` and `B` are the same names; else what each has that the other lacks. */
export type SameNames<A extends PropertyKey, B extends PropertyKey> = [Exclude<A, B> | Exclude<B, A>] extends [never]
  ? true
  : { onlyInFirst: Exclude<A, B>; onlyInSecond: Exclude<B, A> };

/** Fails to compile unless `T` is `true`: `export type X = AssertTrue<SameNames<A, B>>`. */
export type AssertTrue<T extends true> = T;
