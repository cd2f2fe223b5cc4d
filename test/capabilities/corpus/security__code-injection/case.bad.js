function calculate(req, res) {
  const result = eval(req.body.expression);
  res.json({ result });
}
module.exports = { calculate };
