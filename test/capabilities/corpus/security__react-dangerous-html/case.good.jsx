import DOMPurify from 'dompurify';
export function Comment({ comment }) {
  return <div className="comment" dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(comment.body) }} />;
}
