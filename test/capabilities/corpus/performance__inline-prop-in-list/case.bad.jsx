export function Rows({ rows, select }) {
  return rows.map((row) => <Row key={row.id} row={row} style={{ color: 'red' }} onSelect={() => select(row.id)} />);
}
