import debounce from 'lodash/debounce';
export function Search({ onSearch }) {
  return <input onChange={debounce((event) => onSearch(event.target.value), 200)} />;
}
