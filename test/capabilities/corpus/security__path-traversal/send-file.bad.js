export function avatar(req, res) {
  res.sendFile(`/srv/avatars/${req.query.user}.png`);
}
