function calculate(req, res) {
  const numbers = JSON.parse(req.body.expression);
  res.json({ result: numbers.reduce((sum, value) => sum + value, 0) });
}
module.exports = { calculate };
