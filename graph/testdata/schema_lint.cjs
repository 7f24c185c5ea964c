// Runs graphql-schema-linter (the pinned 3.0.1) over schema files with the
// rules given, as its command line does. Run by schema_lint_test.go:
//
//   node schema_lint.cjs <rule,rule,...> <schema.graphqls>...
//
// Prints {"exit": <the linter's exit code>, "errors": [...], "stderr": "..."}:
// each error as the linter's JSON format gives it (message, rule, file,
// line). Exits non-zero only when the linter itself could not run.
'use strict';
const { Writable } = require('stream');
const { run } = require('graphql-schema-linter/lib/runner.js');

const [rules, ...files] = process.argv.slice(2);
if (!rules || files.length === 0) {
  console.error('usage: schema_lint.cjs <rule,rule,...> <schema.graphqls>...');
  process.exit(2);
}

function sink() {
  const chunks = [];
  const w = new Writable({
    write(chunk, _enc, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  w.text = () => Buffer.concat(chunks).toString('utf8');
  return w;
}

(async () => {
  const out = sink();
  const err = sink();
  const exit = await run(out, process.stdin, err, ['node', 'graphql-schema-linter', '--format', 'json', '--rules', rules, ...files]);
  const text = out.text();
  const report = text ? JSON.parse(text) : { errors: [] };
  process.stdout.write(JSON.stringify({ exit, errors: report.errors, stderr: err.text() }));
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(2);
});
