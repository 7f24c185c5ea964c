// Starts Scalar's API reference on /openapi.json with everything that would
// reach beyond this server turned off (docs/api-reference.md). Loaded before
// Scalar's bundle: the line below must run before the bundle does.
'use strict';

// The zod inside the bundle probes once whether it may compile validators
// with Function(): under our CSP (no 'unsafe-eval') the probe is refused,
// caught, and reported as a violation. jitless skips the probe (zod then
// interprets its schemas, as it would after a refused probe).
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });

document.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('reference');
  root.textContent = '';
  // Relative to the page, like its links (a proxy's prefix is kept).
  var doc = new URL('openapi.json', document.baseURI).href;
  window.Scalar.createApiReference(root, {
    url: doc,
    title: 'Loupe REST API',
    // Our page has its own bar; Scalar's parts stay below it (reference.css).
    // Nothing from the internet: no fonts from Scalar's CDN (the system's),
    // no AI agent or MCP (both on by default on localhost, talking to
    // api.scalar.com), no developer toolbar (it uploads the document to
    // Scalar to share it), no "open in Scalar's client" button (a link to
    // client.scalar.com), no telemetry. proxyUrl stays unset: requests
    // from "Test Request" go straight to this server (the document's server
    // is "/"), and the CSP allows no other.
    withDefaultFonts: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    hideClientButton: true,
    telemetry: false,
    // A credential typed into "Test Request" is not kept by the browser.
    persistAuth: false,
    // The download button links to the server's document (no blob: made
    // in the page); the bar links both forms.
    documentDownloadType: 'direct',
  });
});
