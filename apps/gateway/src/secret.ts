import { inspect } from 'node:util';

/**
 * A configuration value that must never reach a log line: `String()`, JSON and `util.inspect` all
 * print `[redacted]`; only {@link Secret.reveal} gives the value.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}
