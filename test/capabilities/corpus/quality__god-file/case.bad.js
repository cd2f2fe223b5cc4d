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
export function helper5(value) {
  return value + 5;
}
export function helper6(value) {
  return value + 6;
}
export function helper7(value) {
  return value + 7;
}
export function helper8(value) {
  return value + 8;
}
export function helper9(value) {
  return value + 9;
}
export function helper10(value) {
  return value + 10;
}
export function helper11(value) {
  return value + 11;
}
export function helper12(value) {
  return value + 12;
}
export function helper13(value) {
  return value + 13;
}
export function helper14(value) {
  return value + 14;
}
export function helper15(value) {
  return value + 15;
}
export function helper16(value) {
  return value + 16;
}
export function helper17(value) {
  return value + 17;
}
export function helper18(value) {
  return value + 18;
}
export function helper19(value) {
  return value + 19;
}
export function helper20(value) {
  return value + 20;
}
export function helper21(value) {
  return value + 21;
}
export function helper22(value) {
  return value + 22;
}
export function helper23(value) {
  return value + 23;
}
export function helper24(value) {
  return value + 24;
}
export function helper25(value) {
  return value + 25;
}
export function helper26(value) {
  return value + 26;
}
export function helper27(value) {
  return value + 27;
}
export function helper28(value) {
  return value + 28;
}
export function helper29(value) {
  return value + 29;
}
export function helper30(value) {
  return value + 30;
}
export function helper31(value) {
  return value + 31;
}
export function helper32(value) {
  return value + 32;
}
export function helper33(value) {
  return value + 33;
}
export function helper34(value) {
  return value + 34;
}
