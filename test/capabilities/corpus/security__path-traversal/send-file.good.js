export function avatar(req, res) {
  res.sendFile(`${req.query.user}.png`, { root: '/srv/avatars' });
}
