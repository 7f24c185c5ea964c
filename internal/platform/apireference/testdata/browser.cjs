// Drives /reference in headless Chromium with every host but 127.0.0.1
// unreachable: the page must load wholly from the server, render the
// REST interface's document, find an operation by search and show its
// parameters and response, and send a test request to the server itself.
// Run by browser_test.go:
//
//   node browser.cjs <base URL> <chromium> <screenshot.png> <expect.json>
//
// expect.json names what to look for (taken from /openapi.json by the
// test): the tags and summaries of the sidebar, the operation to search
// for, its parameter and response property, and an item to ask for.
// Prints a JSON summary on stdout; a failed wait throws (exit 1).
'use strict';
const fs = require('fs');
const { chromium } = require('playwright-core');

const [base, executablePath, screenshot, expectFile] = process.argv.slice(2);
if (!expectFile) {
  console.error('usage: browser.cjs <base URL> <chromium> <screenshot.png> <expect.json>');
  process.exit(2);
}
const want = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
const TIMEOUT = 30000;

// Requests that left 127.0.0.1 (aborted), CSP violations, script errors,
// and every request the page made (method, path, Authorization).
const offHost = [];
const cspViolations = [];
const pageErrors = [];
const requests = [];

async function main() {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
  const summary = {};
  try {
    const context = await browser.newContext();
    context.setDefaultTimeout(TIMEOUT);
    await context.route('**/*', (route) => {
      const url = route.request().url();
      let host = '';
      try { host = new URL(url).hostname; } catch (e) { /* counted below */ }
      if (host !== '127.0.0.1') {
        offHost.push(url);
        return route.abort('blockedbyclient');
      }
      return route.continue();
    });
    // Set before the page's own scripts run; CDP's injection is not subject
    // to the page's CSP.
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber);
      });
    });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const text = m.text();
      if (text.startsWith('CSP violation') || text.includes('Content Security Policy')) cspViolations.push(text.slice(0, 300));
      // The test request without a key is answered 401 on purpose.
      else if (!text.includes('status of 401')) pageErrors.push('console: ' + text.slice(0, 300));
    });
    page.on('request', (r) => {
      const u = new URL(r.url());
      requests.push({ method: r.method(), origin: u.origin, path: u.pathname, authorization: r.headers()['authorization'] || '' });
    });
    await page.setViewportSize({ width: 1400, height: 900 });

    // 1. The page: Scalar renders the document's title; the sidebar lists
    // the tags, and opening two of them shows their operations' summaries.
    await page.goto(base + '/reference');
    await page.getByRole('heading', { level: 1, name: want.title }).waitFor();
    const sidebar = page.locator('aside.t-doc__sidebar');
    const tagHeadings = [];
    for (const tag of want.tags) {
      await sidebar.getByRole('link', { name: tag.name, exact: true }).click();
      for (const s of tag.summaries) await sidebar.getByText(s, { exact: true }).first().waitFor();
      // The click scrolls the content to the tag's section.
      const h = page.locator('main').getByRole('heading', { level: 2, name: tag.name, exact: true });
      await h.waitFor();
      tagHeadings.push(await h.innerText());
    }
    await page.screenshot({ path: screenshot });
    summary.loaded = {
      title: await page.title(),
      heading: await page.getByRole('heading', { level: 1 }).first().innerText(),
      sidebar: await sidebar.innerText(),
      tagHeadings,
      // What the options turned off would have drawn.
      body: await page.locator('body').innerText(),
      download: await page.getByRole('link', { name: /Download OpenAPI/ }).getAttribute('href'),
    };

    // 2. Search for the operation by its id; the result opens its section,
    // which shows its parameters and, opened, its 200 response's properties.
    await sidebar.getByRole('button', { name: /Search/ }).first().click();
    const search = page.getByRole('dialog');
    await search.getByRole('combobox').waitFor();
    await page.keyboard.type(want.operation.id);
    // A result reads "Operation: <summary> , GET HTTP Method: get Path: <path>".
    const options = search.getByRole('option');
    const isWanted = (text) => {
      const words = text.split(/\s+/).filter((w) => w);
      return words.includes(want.operation.method.toUpperCase()) && words[words.length - 1] === want.operation.path;
    };
    let results = [];
    for (const deadline = Date.now() + TIMEOUT; !results.some(isWanted); await page.waitForTimeout(200)) {
      if (Date.now() > deadline) throw new Error('no search result for ' + want.operation.id + ': ' + JSON.stringify(results));
      results = await options.allInnerTexts();
    }
    await options.nth(results.findIndex(isWanted)).click();
    await search.waitFor({ state: 'detached' });
    const section = page.locator(`section[id$="/${want.operation.method.toUpperCase()}${want.operation.path}"]`);
    await section.getByText(want.operation.parameter, { exact: true }).first().waitFor();
    const beforeResponse = await section.innerText();
    await section.locator('button[id$=".responses.200"]').click();
    await section.getByText(want.operation.propertyDescription).first().waitFor();
    summary.operation = {
      searchResults: results,
      url: page.url(),
      heading: await section.locator('h3').first().innerText(),
      text: beforeResponse,
      withResponse: await section.innerText(),
    };

    // 3. "Test Request": the API client sends the request to this server,
    // with the key typed into its form, and shows the answer.
    await section.getByRole('button', { name: /Test Request/ }).first().click();
    const client = page.getByRole('dialog').last();
    await client.getByPlaceholder('Token').fill(want.key);
    const idRow = client.locator('tr').filter({ has: page.getByRole('checkbox', { name: 'Include ' + want.operation.pathParameter + ' in request' }) });
    await idRow.locator('[contenteditable=true]').nth(1).click();
    await page.keyboard.type(want.itemId);
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/items/' + want.itemId),
      client.getByRole('button', { name: /^Send/ }).first().click(),
    ]);
    await client.getByText(want.itemTitle).first().waitFor();
    summary.testRequest = {
      url: response.url(),
      status: response.status(),
      authorization: (await response.request().allHeaders())['authorization'] || '',
      shown: await client.innerText(),
      stored: await page.evaluate(() => JSON.stringify(Object.assign({}, localStorage))),
    };
    await context.close();
  } finally {
    await browser.close();
  }
  summary.requests = requests;
  summary.offHost = offHost;
  summary.cspViolations = cspViolations;
  summary.pageErrors = pageErrors;
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e && e.stack || String(e));
  console.error(JSON.stringify({ offHost, cspViolations, pageErrors }, null, 2));
  process.exit(1);
});
