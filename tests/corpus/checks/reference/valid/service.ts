// Valid TypeScript a model writes: annotations, generics, enums, satisfies, decorators.
import type { Readable } from "node:stream";
import { EventEmitter } from "node:events";

export enum Status {
  Idle = "idle",
  Busy = "busy",
}

export const enum Flags {
  None = 0,
  Bold = 1 << 0,
  Italic = 1 << 1,
}

declare const process: { env: Record<string, string | undefined> };

export interface User<Id extends string | number = string> {
  readonly id: Id;
  name: string;
  email?: string;
  tags: ReadonlyArray<string>;
  [extra: string]: unknown;
}

type Handler<T> = (event: T) => void | Promise<void>;
type Keys<T> = keyof T & string;
type Getters<T> = { [K in Keys<T> as `get${Capitalize<K>}`]: () => T[K] };
type Unwrap<T> = T extends Promise<infer U> ? Unwrap<U> : T;

const config = {
  port: 8080,
  host: "localhost",
} satisfies Record<string, string | number>;

function logged(target: unknown, context: ClassMethodDecoratorContext): void {
  void target;
  void context;
}

export abstract class Repository<T extends { id: string }> {
  protected items = new Map<string, T>();
  abstract validate(item: T): asserts item is T;

  constructor(private readonly name: string, public limit = 100) {}

  @logged
  save(item: T): T {
    this.validate(item);
    this.items.set(item.id, item);
    return item;
  }

  find(id: string): T | undefined {
    return this.items.get(id) ?? undefined;
  }

  get size(): number {
    return this.items.size;
  }

  static create<U extends { id: string }>(this: new (name: string) => Repository<U>, name: string) {
    return new this(name);
  }
}

export function first<T>(items: readonly T[]): T | undefined {
  return items.length > 0 ? items[0] : undefined;
}

export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function isUser(value: unknown): value is User {
  return typeof value === "object" && value !== null && "id" in value;
}

const emitter = new EventEmitter();
const handler: Handler<string> = async (event) => {
  console.log(event!.toUpperCase());
};
emitter.on("message", handler);

let counter = 0 as number;
counter += <number>1;
const tuple: [name: string, age?: number] = ["Ada"];
const port = process.env.PORT ? Number(process.env.PORT) : config.port;
export { config, port, tuple };
export default Repository;
