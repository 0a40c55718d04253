import type { ComponentChildren } from 'preact';

/**
 * A list as a table (`table.list`: a card per row below 40rem): its caption for screen readers, a header
 * cell per column, and a last header for the rows' actions where the caller may act on them
 * (`actions`), named for screen readers and blank to the eye. The rows are the children.
 */
export function ListTable(props: { caption: string; columns: readonly string[]; actions?: boolean; children: ComponentChildren }) {
  return (
    <table class="list">
      <caption class="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
          {props.actions && (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}
