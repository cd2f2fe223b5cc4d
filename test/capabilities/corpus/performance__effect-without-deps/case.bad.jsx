import { useEffect } from 'react';
export function Title({ text }) {
  useEffect(() => {
    document.title = text;
  });
  return <h1>{text}</h1>;
}
