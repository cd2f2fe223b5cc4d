import { memo } from 'react';
const Row = memo(function Row({ row, style, onSelect }) {
  return <li style={style} onClick={onSelect}>{row.name}</li>;
});
export function Rows({ rows, select }) {
  return rows.map((row) => <Row key={row.id} row={row} style={{ color: 'red' }} onSelect={() => select(row.id)} />);
}
