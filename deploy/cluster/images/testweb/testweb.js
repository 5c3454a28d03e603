#!/usr/bin/env node
// The cluster proof's test web, run in the cluster beside Trawl (image built from images/testweb): a site
// for crawls, batches and Fetch, and an HTTPS webhook receiver. No dependencies, so its image is the
// bookworm + Node base and this file.
//
// HTTP on PORT (8080):
//   GET /site/<size>/<delayMs>/p/<n>  page n (0 ≤ n < size) of a site of `size` pages, answered after
//                                     `delayMs`. Page n links to pages 10n+1 … 10n+10 (a tree, so a
//                                     crawl from page 0 reaches every page) and, once more, to page 0
//                                     and itself, which a crawl must not fetch twice.
//   GET /render                       a page whose text only its script writes (js_render proof).
//   GET /hits                         {"<path>": count} of every site page served, for the report.
//   GET /hooks/<box>                  the deliveries the receiver took for <box>, raw, in arrival order.
//   GET /healthz
// HTTPS on TLS_PORT (8443), with the certificate at TLS_CERT / TLS_KEY (the proof's own CA):
//   POST /hooks/<box>                 takes a webhook delivery: headers and raw body, answered 204.
'use strict';
const http = require('node:http');
const https = require('node:https');
const { readFileSync } = require('node:fs');

const PORT = Number(process.env.PORT || 8080);
const TLS_PORT = Number(process.env.TLS_PORT || 8443);
const RENDER_MARKER = 'rendered-in-the-cluster-7d2f';
const FAN_OUT = 10;

const hits = new Map();
const deliveries = new Map();

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sitePage(size, n) {
  const base = `/site/${size.raw}/${size.delay}/p/`;
  const links = [];
  for (let child = FAN_OUT * n + 1; child <= FAN_OUT * n + FAN_OUT && child < size.pages; child++) {
    links.push(`<li><a href="${base}${child}">page ${child}</a></li>`);
  }
  return (
    `<!doctype html><html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1>` +
    `<p>Page ${n} of ${size.pages}: the cluster proof's site.</p><ul>${links.join('')}</ul>` +
    `<a href="${base}0">home</a> <a href="${base}${n}">this page</a></body></html>`
  );
}

const SITE_PATH = /^\/site\/(\d{1,6})\/(\d{1,5})\/p\/(\d{1,6})$/;

function onPlainRequest(req, res) {
  const path = req.url.split('?')[0];
  const site = SITE_PATH.exec(path);
  if (req.method === 'GET' && site) {
    const size = { raw: site[1], pages: Number(site[1]), delay: Number(site[2]) };
    const n = Number(site[3]);
    if (n >= size.pages) return send(res, 404, 'text/plain', 'no such page\n');
    hits.set(path, (hits.get(path) || 0) + 1);
    setTimeout(() => send(res, 200, 'text/html; charset=utf-8', sitePage(size, n)), size.delay);
    return;
  }
  if (req.method === 'GET' && path === '/render') {
    const html =
      '<!doctype html><html><head><title>Rendered</title></head><body><div id="out">not rendered</div>' +
      `<script>document.getElementById('out').textContent = ['rendered', 'in', 'the', 'cluster', '7d2f'].join('-');</script>` +
      '</body></html>';
    return send(res, 200, 'text/html; charset=utf-8', html);
  }
  if (req.method === 'GET' && path === '/hits') return send(res, 200, 'application/json', JSON.stringify(Object.fromEntries(hits)));
  if (req.method === 'GET' && path.startsWith('/hooks/')) {
    return send(res, 200, 'application/json', JSON.stringify(deliveries.get(path.slice('/hooks/'.length)) || []));
  }
  if (path === '/healthz') return send(res, 200, 'text/plain', 'ok\n');
  send(res, 404, 'text/plain', 'not found\n');
}

function onTlsRequest(req, res) {
  const path = req.url.split('?')[0];
  if (req.method !== 'POST' || !path.startsWith('/hooks/')) return send(res, 404, 'text/plain', 'not found\n');
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const box = path.slice('/hooks/'.length);
    const list = deliveries.get(box) || [];
    list.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: new Date().toISOString() });
    deliveries.set(box, list);
    res.writeHead(204).end();
  });
}

const servers = [http.createServer(onPlainRequest).listen(PORT, '0.0.0.0')];
if (process.env.TLS_CERT && process.env.TLS_KEY) {
  const tls = { cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) };
  servers.push(https.createServer(tls, onTlsRequest).listen(TLS_PORT, '0.0.0.0'));
}
console.log(`testweb: http :${PORT}${servers.length > 1 ? `, https :${TLS_PORT}` : ''}; render marker ${RENDER_MARKER}`);
process.on('SIGTERM', () => {
  for (const server of servers) server.close();
  process.exit(0);
});
