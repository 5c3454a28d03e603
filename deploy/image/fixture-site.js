// The proof's target site: one page whose text only JavaScript can write, so a rendered answer shows
// that Chromium in the image ran the page's script. Listens on loopback on a free port and prints it.
'use strict';
const http = require('node:http');

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>trawl image proof</title></head>
<body><p id="out">not rendered</p>
<script>
  // Assembled at run time: the answer's marker text appears nowhere in this source.
  document.getElementById('out').textContent = ['rendered', 'by', 'script', 6 * 7].join('-');
</script></body></html>`;

const server = http.createServer((req, res) => {
  if (req.url === '/favicon.ico') return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
