export function parse(input: string): number[] {
  const out: number[] = [];
  for (const part of input.split(",")) {
    if (part.trim() !== "") {
      out.push(Number(part));
  }
  return out;
}

export function total(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0);
}
