const destinations = { home: '/', settings: '/settings' };
export function afterLogin(req, res) {
  res.redirect(destinations[req.query.next] ?? '/');
}
