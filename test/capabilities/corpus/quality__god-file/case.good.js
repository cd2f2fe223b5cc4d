export function helper0(value) {
  return value + 0;
}
export function helper1(value) {
  return value + 1;
}
export function helper2(value) {
  return value + 2;
}
export function helper3(value) {
  return value + 3;
}
export function helper4(value) {
  return value + 4;
}
