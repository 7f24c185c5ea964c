// node generate.mjs <openapi.json> <schema.d.ts>
//
// Writes the TypeScript types of the OpenAPI document with openapi-typescript
// (its default options, as an integrator runs it) through its Node API, and
// prints {"warnings": [...]}: what it warned about while reading the
// document (its Redocly validation), so that the Go test can require none.
// A problem it counts as an error throws, and this script fails.
import { readFile, writeFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";

const [input, output] = process.argv.slice(2);
const warnings = [];
const warn = console.warn;
console.warn = (...args) => warnings.push(args.join(" ").replace(/\x1b\[[0-9;]*m/g, "").trim());
try {
	const ast = await openapiTS(JSON.parse(await readFile(input, "utf8")));
	await writeFile(output, astToString(ast));
} finally {
	console.warn = warn;
}
console.log(JSON.stringify({ warnings }));
