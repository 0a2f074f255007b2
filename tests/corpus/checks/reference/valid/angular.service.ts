// Angular-style TypeScript: legacy decorators with arguments, parameter decorators,
// definite assignment, index signatures, overloaded constructors' parameter properties.
import { Injectable, Inject, Optional } from "@angular/core";
import type { Observable } from "rxjs";

export const API_URL = "API_URL";

export interface Page<T> {
  items: T[];
  total: number;
  [meta: `x-${string}`]: unknown;
}

@Injectable({ providedIn: "root" })
export class UserService<TUser extends { id: number }> {
  private cache!: Map<number, TUser>;
  protected static instances = 0;

  constructor(
    @Inject(API_URL) private readonly baseUrl: string,
    @Optional() private readonly logger?: { log(message: string): void },
  ) {
    UserService.instances++;
  }

  list(page = 1, size = 20): Observable<Page<TUser>> | undefined {
    this.logger?.log(`GET ${this.baseUrl}/users?page=${page}&size=${size}`);
    return undefined;
  }

  get count(): number {
    return this.cache?.size ?? 0;
  }

  set count(_value: number) {
    throw new Error("read-only");
  }
}

export type Partialize<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
export const isDefined = <T,>(value: T | null | undefined): value is T => value != null;
export function assertNever(value: never): never {
  throw new Error(`Unexpected: ${JSON.stringify(value)}`);
}
