// Verifies webhook requests with the reference implementation of
// Standard Webhooks (npm standardwebhooks), not with Loupe's own code.
// Run by webhooks_test.go:
//
//   node verify_webhooks.cjs '<JSON: [{secret, id, timestamp, signature, body}]>'
//
// Prints a JSON array: for each request, "ok" or the verifier's error.
'use strict';
const { Webhook } = require('standardwebhooks');

const requests = JSON.parse(process.argv[2]);
const out = requests.map((r) => {
  try {
    const payload = new Webhook(r.secret.replace(/^whsec_/, '')).verify(r.body, {
      'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature,
    });
    return payload && payload.type ? 'ok' : 'no payload';
  } catch (e) {
    return String(e && e.message || e);
  }
});
console.log(JSON.stringify(out));
