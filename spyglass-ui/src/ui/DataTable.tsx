/**
 * The pages' lists as tables: a `table.data` of one kind (alerts, standing, saved, queries, …) in
 * its scrolling wrapper, a heading a column, a row an item, and an unlabelled last column of actions
 * when the page offers any (screen readers hear "Actions").
 */
import type { ComponentChildren, VNode } from 'preact';

export interface DataTableProps<T> {
  /** The table's class beside `data`, which the page's styles and tests select by. */
  kind: string;
  /** The column headings; an empty one (false, null, undefined) is a column the page leaves out. */
  headings: readonly ComponentChildren[];
  /** Whether the last column holds each row's buttons. */
  actions?: boolean;
  items: readonly T[];
  /** An item's row (a `tr`). */
  row: (item: T) => VNode;
}

export function DataTable<T>({ kind, headings, actions = false, items, row }: DataTableProps<T>) {
  return (
    <div class="table-wrap">
      <table class={`data ${kind}`}>
        <thead>
          <tr>
            {headings
              .filter((h) => h != null && h !== false)
              .map((h) => (
                <th scope="col">{h}</th>
              ))}
            {actions && (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{items.map(row)}</tbody>
      </table>
    </div>
  );
}
