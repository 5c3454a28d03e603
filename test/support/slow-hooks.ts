// Integration and e2e suites start real databases (a migrated database each), NATS streams, services
// and command-line processes in their hooks and tests: seconds of work that a loaded CI machine can
// stretch past jest's 5 s default (the CLI's tests, each spawning `trawl` a few times, did so with
// two suites at a time). A suite that needs longer still sets its own timeouts.
jest.setTimeout(60_000);
