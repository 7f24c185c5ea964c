// Drives /playground in headless Chromium with every host but 127.0.0.1
// unreachable: the page must load wholly from the server, take the key from
// the fragment or its form, and send it on every request. Run by
// browser_test.go:
//
//   node browser.cjs <base URL> <API key> <chromium> <item title> <screenshot.png> <item id>
//
// Prints a JSON summary on stdout; a failed wait throws (exit 1).
'use strict';
const { chromium } = require('playwright-core');

const [base, apiKey, executablePath, title, screenshot, itemID] = process.argv.slice(2);
if (!itemID) {
  console.error('usage: browser.cjs <base URL> <API key> <chromium> <item title> <screenshot.png> <item id>');
  process.exit(2);
}
const STORAGE_KEY = 'loupe.playground.apiKey';
const TIMEOUT = 30000;

// Requests that left 127.0.0.1 (aborted), CSP violations, script errors.
const offHost = [];
const cspViolations = [];
const pageErrors = [];

async function newContext(browser) {
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
      console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI);
    });
  });
  return context;
}

// watch records a page's errors and its requests to /graphql.
function watch(page) {
  const graphql = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (text.startsWith('CSP violation') || text.includes('Content Security Policy')) cspViolations.push(text.slice(0, 300));
    else if (!text.includes('401')) pageErrors.push('console: ' + text); // a refused key logs its 401
  });
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/graphql') graphql.push(r.headers()['authorization'] || '');
  });
  return graphql;
}

// onScreen reports whether the element is drawn inside the viewport (not
// merely present and sized).
async function onScreen(locator) {
  const box = await locator.boundingBox();
  const view = locator.page().viewportSize();
  return !!box && box.width > 100 && box.x >= 0 && box.x + box.width <= view.width && box.y >= 0 && box.y < view.height;
}

// run clicks GraphiQL's run button and waits for the result pane to show
// want; it returns the server's answer (status and JSON body).
async function run(page, want) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/graphql' &&
      !(r.request().postData() || '').includes('__schema')),
    page.locator('.graphiql-execute-button').click(),
  ]);
  await page.waitForFunction(
    (w) => (document.querySelector('.graphiql-response') || {}).textContent?.includes(w), want);
  return { status: response.status(), body: await response.json() };
}

async function main() {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    // Each launch has a fresh profile (a temporary user data dir).
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
  const summary = {};
  try {
    // 1. The key in the fragment: taken, stored, hidden; the default query runs.
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const sent1 = watch(page);
    await page.setViewportSize({ width: 1400, height: 850 });
    await page.goto(base + '/playground#key=' + encodeURIComponent(apiKey));
    await page.locator('.graphiql-container').waitFor();
    // The explorer is open (GraphiQL keeps a closed one in the DOM, off
    // screen) and lists the root types: introspection, with the key, answered.
    const docs = page.locator('.graphiql-doc-explorer');
    await page.locator('button[aria-label="Hide Documentation Explorer"]').waitFor();
    await docs.getByText('Query', { exact: true }).first().waitFor();
    const result1 = await run(page, title);
    await page.screenshot({ path: screenshot });
    // A dialog (Radix's, which inserts a <style> element): under the CSP too.
    await page.locator('button[aria-label="Open settings dialog"]').click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const settingsDialog = await dialog.isVisible();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    summary.fragment = {
      url: page.url(),
      stored: (await page.evaluate((k) => localStorage.getItem(k), STORAGE_KEY)) === apiKey,
      docExplorer: await onScreen(docs),
      keyFormHidden: await page.locator('#key-panel').isHidden(),
      settingsDialog,
      result: result1,
      graphqlRequests: sent1.length,
      withKey: sent1.filter((h) => h === 'Bearer ' + apiKey).length,
    };

    // 1b. A subscription typed into the editor streams its events into the
    // result pane as the item changes (a change made by another client).
    const setQuery = (q) => page.evaluate((q) => {
      const cm = document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror;
      const was = cm.getValue();
      cm.setValue(q);
      return was;
    }, q);
    const defaultQuery = await setQuery(`subscription { itemEvents(itemId: "${itemID}") { type data item { title } } }`);
    await page.locator('.graphiql-execute-button').click();
    await new Promise((r) => setTimeout(r, 1000)); // subscribed
    for (const notes of ['first', 'second']) {
      const res = await fetch(base + '/graphql', { method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + apiKey },
        body: JSON.stringify({ query: 'mutation($in: UpdateItemMetadataInput!) { updateItemMetadata(input: $in) { item { id } } }',
          variables: { in: { id: itemID, metadataDelta: { formData: { notes } } } } }) });
      if (!res.ok) throw new Error('the change failed: ' + res.status);
      const want = '"metadataVersion": ' + (notes === 'first' ? 2 : 3);
      await page.waitForFunction((v) => (document.querySelector('.graphiql-response') || {}).textContent?.includes(v), want)
        .catch(async (e) => {
          throw new Error(e.message + '; the result pane: ' + await page.locator('.graphiql-response').innerText());
        });
    }
    summary.subscription = await page.locator('.graphiql-response').innerText();
    await page.locator('.graphiql-execute-button').click(); // stops it
    await setQuery(defaultQuery); // what the next page finds in the stored tab

    // 2. Another page of the same browser: the stored key, no question.
    const page2 = await ctx.newPage();
    const sent2 = watch(page2);
    await page2.goto(base + '/playground');
    await page2.locator('.graphiql-container').waitFor();
    const result2 = await run(page2, title);
    summary.stored = {
      keyFormHidden: await page2.locator('#key-panel').isHidden(),
      result: result2,
      graphqlRequests: sent2.length,
      withKey: sent2.filter((h) => h === 'Bearer ' + apiKey).length,
    };
    await ctx.close();

    // 3. A fresh browser profile: the form asks; a wrong key is refused.
    const ctx3 = await newContext(browser);
    const page3 = await ctx3.newPage();
    const sent3 = watch(page3);
    await page3.goto(base + '/playground');
    await page3.locator('#key-input').waitFor();
    const askedFirst = await page3.locator('#key-panel').isVisible();
    const graphiqlBeforeKey = await page3.locator('.graphiql-container').count();
    const wrong = 'loupe.00000000000000000000000000000000.wrongwrongwrongwrongwrongwrongwrongwrongwro';
    await page3.locator('#key-input').fill(wrong);
    await page3.locator('#key-submit').click();
    const message = page3.locator('#key-message');
    await message.waitFor();
    // Running the query again shows the server's refusal in the result pane.
    const result3 = await run(page3, 'errors');
    summary.refused = {
      askedFirst,
      graphiqlBeforeKey,
      message: await message.innerText(),
      formShown: await page3.locator('#key-panel').isVisible(),
      storedAfter: await page3.evaluate((k) => localStorage.getItem(k), STORAGE_KEY),
      result: result3,
      graphqlRequests: sent3.length,
      withWrongKey: sent3.filter((h) => h === 'Bearer ' + wrong).length,
    };
    await ctx3.close();
  } finally {
    await browser.close();
  }
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
