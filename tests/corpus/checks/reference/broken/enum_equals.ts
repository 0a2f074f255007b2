export enum Direction {
  Up = 1,
  Down = 2
  Left = 3,
  Right = 4,
}
