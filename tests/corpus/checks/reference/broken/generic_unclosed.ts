export function wrap<T(value: T): { value: T } {
  return { value };
}
