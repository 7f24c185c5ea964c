// Runs graphql-http's audit of a GraphQL-over-HTTP server and prints each
// result as one JSON line: {status, id, name} and, for a result that is not
// ok, the reason and the response the audit judged (status, content type,
// body). The Go test (graphql_audit_test.go) decides what fails.
//
// Usage: node graphql-audit.cjs   (LOUPE_AUDIT_URL, LOUPE_AUDIT_KEY)
'use strict';

// The package exports its audits from its root (lib/audits is not exported).
const { auditServer } = require('graphql-http');

const url = process.env.LOUPE_AUDIT_URL;
const key = process.env.LOUPE_AUDIT_KEY;

// Every audit request carries the key: authentication is in front of the
// engine, and the audit is about what the engine answers.
function fetchFn(input, init = {}) {
  const headers = new Headers(init.headers || {});
  headers.set('authorization', 'Bearer ' + key);
  return fetch(input, { ...init, headers });
}

async function describe(res) {
  if (!res) return undefined;
  let body;
  try {
    body = await res.clone().text();
  } catch (err) {
    body = '(body already read: ' + err.message + ')';
  }
  return { status: res.status, contentType: res.headers.get('content-type'), body };
}

(async () => {
  const results = await auditServer({ url, fetchFn });
  for (const r of results) {
    const out = { status: r.status, id: r.id, name: r.name };
    if (r.status !== 'ok') {
      out.reason = r.reason;
      out.response = await describe(r.response);
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
