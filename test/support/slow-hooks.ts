// Integration suites start real databases (a migrated database each), NATS streams and services in
// their hooks: seconds of work that a loaded CI machine can stretch past jest's 5 s default. A suite
// that needs longer still sets its own `jest.setTimeout`.
jest.setTimeout(60_000);
