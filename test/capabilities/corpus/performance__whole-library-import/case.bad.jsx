import _ from 'lodash';
export function Search({ onSearch }) {
  return <input onChange={_.debounce((event) => onSearch(event.target.value), 200)} />;
}
