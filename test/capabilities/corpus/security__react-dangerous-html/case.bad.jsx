export function Comment({ comment }) {
  return <div className="comment" dangerouslySetInnerHTML={{ __html: comment.body }} />;
}
