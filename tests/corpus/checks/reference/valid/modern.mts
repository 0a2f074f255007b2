// TypeScript 5: const type parameters, accessors, using, overloads, namespaces.
export function tuple<const T extends readonly unknown[]>(...values: T): T {
  return values;
}

export class Counter {
  accessor count = 0;
  #secret = 1;

  increment(this: Counter, by?: number): void {
    this.count += by ?? this.#secret;
  }
}

export function parse(value: string): number;
export function parse(value: number): string;
export function parse(value: string | number): string | number {
  return typeof value === "string" ? Number(value) : String(value);
}

export namespace Geometry {
  export interface Point {
    x: number;
    y: number;
  }
  export const origin: Point = { x: 0, y: 0 };
}

class Resource implements Disposable {
  [Symbol.dispose](): void {}
}

export function withResource(): void {
  using resource = new Resource();
  void resource;
}

const key = "name" as const;
export type Name = (typeof key)[number];
export const values = [1, 2, 3] as const satisfies readonly number[];
label: for (const v of values) {
  if (v > 1) break label;
}

// Newer than the tree-sitter grammar (rewritten before parsing, positions kept):
export interface Producer<out T> {
  make(): T;
}
export interface Transformer<in I, out O> {
  apply(input: I): O;
}
export type * as Everything from "./service";

export class Pool {
  static accessor size = 4;
}

declare function openHandle(): AsyncDisposable;
declare function resources(): Disposable[];

export async function withHandles(): Promise<void> {
  await using handle = openHandle();
  for (using item of resources()) {
    void item;
  }
  void handle;
}
