export function TagList({ tags }) {
  return <ul>{tags.map((tag) => <li key={tag.id}>{tag.label}</li>)}</ul>;
}
