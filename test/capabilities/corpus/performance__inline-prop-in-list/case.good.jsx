const rowStyle = { color: 'red' };
export function Rows({ rows, select }) {
  return rows.map((row) => <Row key={row.id} row={row} style={rowStyle} onSelect={select} />);
}
