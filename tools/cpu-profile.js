// Writes a V8 CPU profile of this process to $CPU_PROFILE_DIR on exit, for `make bench`'s
// `--profile DIR`: `--cpu-prof` is refused in NODE_OPTIONS, a `--require` of this file is not.
// Open the .cpuprofile in Chrome DevTools (Performance) or summarise it with tools/cpu-profile-top.js.
'use strict';
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  // SIGUSR2 restarts the profile, dropping what came before (boot, warm-up): the bench sends it
  // when it starts measuring.
  process.on('SIGUSR2', () => {
    session.post('Profiler.stop', () => session.post('Profiler.start'));
  });
  let written = false;
  // A same-thread inspector session answers synchronously, so this works inside 'exit'.
  process.on('exit', () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      fs.mkdirSync(dir, { recursive: true });
      const name = `${path.basename(path.dirname(path.dirname(process.argv[1] ?? 'node')))}-${process.pid}.cpuprofile`;
      fs.writeFileSync(path.join(dir, name), JSON.stringify(result.profile));
    });
  });
}
