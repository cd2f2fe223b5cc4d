export function TagList({ tags }) {
  return <ul>{tags.map((tag) => <li>{tag.label}</li>)}</ul>;
}
