// Valid modern JavaScript (script or CommonJS): nothing here may be flagged.
'use strict';

class Counter {
  #count = 0;
  static #instances = 0;

  constructor(start = 0) {
    this.#count = start;
    Counter.#instances += 1;
  }

  get value() {
    return this.#count;
  }

  increment(step = 1) {
    this.#count += step;
    return this;
  }

  static get instances() {
    return Counter.#instances;
  }

  static isCounter(object) {
    return #count in object;
  }
}

const config = { server: { port: 8080 } };
const port = config?.server?.port ?? 3000;
const host = config.server.host ??= 'localhost';
const big = 1_000_000n * 2n;
const { groups: { year } = {} } = /(?<year>\d{4})/.exec('in 2024') ?? {};

async function* ticks(limit) {
  for (let i = 0; i < limit; i++) {
    yield await Promise.resolve(i);
  }
}

const label = `port ${port} on ${host}, ${big} ${year}`;
module.exports = { Counter, ticks, label };
