// Compares two GraphQL schemas with @graphql-inspector/core (the pinned
// 8.0.0, the diff of @graphql-inspector/cli 7.0.0), as `graphql-inspector
// diff old new` does with no rules. Run by schema_breaking_test.go:
//
//   node schema_diff.cjs <old.graphql> <new.graphql>
//
// Both sides are compared as clients see them: fields marked @private and
// the directive itself are left out first, as introspection leaves them out
// (graph/private.go).
//
// Prints {"changes": [{"type", "path", "message", "level", "reason"}, ...]}
// in the inspector's order; level is BREAKING, DANGEROUS or NON_BREAKING.
// Exits non-zero only when a schema cannot be read or the diff fails.
'use strict';
const fs = require('fs');
const { parse, visit, buildASTSchema, Kind } = require('graphql');
const { diff } = require('@graphql-inspector/core');

const [oldFile, newFile] = process.argv.slice(2);
if (!oldFile || !newFile) {
  console.error('usage: schema_diff.cjs <old.graphql> <new.graphql>');
  process.exit(2);
}

function isPrivate(node) {
  return (node.directives || []).some((d) => d.name.value === 'private');
}

// load parses and builds a schema file without its @private members.
function load(file) {
  let doc;
  try {
    doc = parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
  const pub = visit(doc, {
    [Kind.FIELD_DEFINITION](node) {
      return isPrivate(node) ? null : undefined;
    },
    [Kind.DIRECTIVE_DEFINITION](node) {
      return node.name.value === 'private' ? null : undefined;
    },
  });
  try {
    return buildASTSchema(pub);
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
}

(async () => {
  const changes = await diff(load(oldFile), load(newFile));
  process.stdout.write(
    JSON.stringify({
      changes: changes.map((c) => ({
        type: c.type,
        path: c.path || '',
        message: c.message,
        level: c.criticality.level,
        reason: c.criticality.reason || '',
      })),
    }),
  );
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(2);
});
