// Drives the share page (/share/<token>) in headless Chromium as an
// outsider does, with every host but 127.0.0.1 unreachable. Run by
// share_page_browser_test.go:
//
//   node share_page.cjs <base URL> <chromium> <config JSON>
//
// config: {folderToken, password, folderTitle, itemTitle, subfolderTitle,
// subItemTitle, field, noDownloadToken, revokedToken, unknownToken} for
// the view shares, or {uploadToken, files, dropName, dropText} for an
// upload share (files: paths chosen through the file chooser).
// Prints a JSON summary on stdout; a failed wait throws (exit 1).
'use strict';
const { chromium } = require('playwright-core');

const [base, executablePath, configJSON] = process.argv.slice(2);
if (!configJSON) {
  console.error('usage: share_page.cjs <base URL> <chromium> <config JSON>');
  process.exit(2);
}
const cfg = JSON.parse(configJSON);
const TIMEOUT = 30000;
// LOUPE_SHARE_PAGE_SCREENSHOTS=<dir> keeps screenshots of each step (to
// look at the page).
const shots = process.env.LOUPE_SHARE_PAGE_SCREENSHOTS || '';
const shot = (page, name) => (shots ? page.screenshot({ path: require('path').join(shots, name + '.png'), fullPage: true }) : null);

// Requests that left 127.0.0.1 (aborted), CSP violations, script errors,
// console errors (each with the URL it names), and the API's answers.
const offHost = [];
const cspViolations = [];
const pageErrors = [];
const consoleErrors = [];
const answers = [];

async function newContext(browser, viewport) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
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
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI);
    });
  });
  return context;
}

function watch(page) {
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (text.startsWith('CSP violation') || text.includes('Content Security Policy')) cspViolations.push(text.slice(0, 300));
    else consoleErrors.push({ text: text.slice(0, 300), url: (m.location() || {}).url || '' });
  });
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/share/api/')) answers.push({ method: r.request().method(), path: u.pathname, status: r.status() });
  });
}

const text = async (locator) => (await locator.innerText()).trim();

// cardTitles are the titles in the folder grid.
async function cardTitles(page) {
  await page.locator('#grid .card-button').first().waitFor();
  return page.locator('#grid .card-title').allInnerTexts();
}

// seekedAfter runs act and waits for the player's seeked event; it answers
// the player's time then.
async function seekedAfter(page, act) {
  const seeked = page.evaluate(() => new Promise((resolve) => {
    document.getElementById('player').addEventListener('seeked', () => resolve(), { once: true });
  }));
  await act();
  await seeked;
  return page.evaluate(() => document.getElementById('player').currentTime);
}

const noHorizontalScroll = (page) => page.evaluate(() => ({
  scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));

// The view shares (config: folderToken … unknownToken).
async function viewing(browser, summary) {
  // 1. The folder share with a password, at desktop width.
  const ctx = await newContext(browser, { width: 1280, height: 900 });
  const page = await ctx.newPage();
  watch(page);
  const first = await page.goto(base + '/share/' + cfg.folderToken);
  const html = await first.text();
  const pw = page.locator('#share-password');
  await pw.waitFor();
  const landing = {
    htmlHasToken: html.includes(cfg.folderToken),
    title: await text(page.locator('h1')),
    expiry: await text(page.locator('.expiry')),
    passwordFocused: await page.evaluate(() => document.activeElement && document.activeElement.id),
  };
  // A wrong password: the server's sentence.
  await shot(page, '1-landing');
  await pw.fill('not the password');
  await page.locator('#open-button').click();
  const error = page.locator('#open-error');
  await page.waitForFunction(() => {
    const e = document.getElementById('open-error');
    return e && !e.hidden && e.textContent && document.getElementById('open-button').textContent !== 'Opening…';
  });
  landing.wrongMessage = await text(error);
  // The right one at once: the server asks to wait (429); the button
  // waits as long, then takes it.
  await pw.fill(cfg.password);
  await pw.press('Enter');
  await page.waitForFunction((was) => {
    const e = document.getElementById('open-error');
    return e && !e.hidden && e.textContent.trim() !== was;
  }, landing.wrongMessage);
  landing.throttledMessage = await text(error);
  await shot(page, '2-throttled');
  landing.disabledWhileThrottled = await page.locator('#open-button').isDisabled();
  const throttledAt = Date.now();
  await page.waitForFunction(() => !document.getElementById('open-button').disabled, null, { timeout: 20000 });
  landing.reenabledAfterMs = Date.now() - throttledAt;
  landing.reenabledMessage = await text(error);
  await page.locator('#open-button').click();
  summary.landing = landing;

  // The folder's grid; a subfolder opens into its own, with a way back.
  const grid = { titles: await cardTitles(page), heading: await text(page.locator('#view-title')) };
  await page.waitForFunction(() => [...document.querySelectorAll('#grid img')].every((i) => i.complete));
  await shot(page, '3-grid');
  await page.locator('#grid .card-button', { hasText: cfg.subfolderTitle }).click();
  await page.locator('#back-button').waitFor();
  grid.subfolderHeading = await text(page.locator('#view-title'));
  grid.subfolderTitles = await cardTitles(page);
  grid.crumbs = await text(page.locator('.crumbs ol'));
  await page.locator('#back-button').click();
  await page.locator('#back-button').waitFor({ state: 'detached' });
  grid.backTitles = await cardTitles(page);
  summary.grid = grid;

  // The video: it loads, the strip seeks, it plays.
  const comments = page.waitForResponse((r) => r.url().endsWith('/comments') && r.request().method() === 'GET')
    .catch((e) => e);
  await page.locator('#grid .card-button', { hasText: cfg.itemTitle }).click();
  const player = page.locator('#player');
  await player.waitFor();
  const media = await page.evaluate(() => new Promise((resolve, reject) => {
    const v = document.getElementById('player');
    const done = () => resolve({ duration: v.duration, width: v.videoWidth, poster: !!v.poster, focused: document.activeElement.id });
    if (v.readyState >= 2) return done();
    v.addEventListener('loadeddata', done, { once: true });
    v.addEventListener('error', () => reject(new Error('media error ' + (v.error && v.error.code))), { once: true });
    v.preload = 'auto';
    v.load();
  }));
  await page.waitForFunction(() => document.querySelectorAll('#strip .strip-tile').length >= 3);
  const tiles = page.locator('#strip .strip-tile');
  media.tileStarts = (await tiles.evaluateAll((ts) => ts.map((t) => Number(t.dataset.start))));
  media.tileSize = await tiles.first().evaluate((t) => {
    const s = getComputedStyle(t);
    return { width: t.offsetWidth, height: t.offsetHeight, image: s.backgroundImage.slice(0, 5) };
  });
  media.clickedTile = media.tileStarts[2];
  media.afterSeek = await seekedAfter(page, () => tiles.nth(2).click());
  media.currentTile = await page.locator('#strip .strip-tile[aria-current="true"]').getAttribute('data-start');
  media.advanced = await page.evaluate(async () => {
    const v = document.getElementById('player');
    await v.play();
    const from = v.currentTime;
    await new Promise((r) => setTimeout(r, 1500));
    v.pause();
    return v.currentTime - from;
  });
  media.title = await text(page.locator('#view-title'));
  media.field = await page.locator(`dd[data-field="${cfg.field}"]`).innerText();
  media.fieldLabel = await page.locator(`dt[data-field="${cfg.field}"]`).innerText();
  media.message = await text(page.locator('.share-head .message'));
  summary.media = media;

  // Download: the link the API answers, saved by the browser.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-button').click()]);
  summary.download = { url: download.url(), fileName: download.suggestedFilename() };
  await download.cancel().catch(() => {});

  // Comments, when the server has them: a timed comment at the player's
  // time, shown with that time; clicking it seeks there.
  const commentsAnswer = await comments;
  if (commentsAnswer instanceof Error) throw commentsAnswer;
  summary.comments = { status: commentsAnswer.status() };
  if (commentsAnswer.status() === 200) {
    await page.locator('#comment-form').waitFor();
    const at = await seekedAfter(page, () => tiles.nth(3).click());
    summary.comments.at = at;
    summary.comments.shownTime = await text(page.locator('#comment-time'));
    await page.locator('#comment-name').fill('Dana');
    await page.locator('#comment-text').fill('Cut here, please');
    await page.locator('#comment-submit').click();
    const mine = page.locator('#comment-list .comment', { hasText: 'Cut here, please' });
    await mine.waitFor();
    summary.comments.listed = await text(mine.locator('.comment-text'));
    summary.comments.author = await text(mine.locator('.who'));
    summary.comments.time = await text(mine.locator('button.at'));
    await seekedAfter(page, () => tiles.nth(0).click());
    summary.comments.seekedTo = await seekedAfter(page, () => mine.locator('button.at').click());
    await shot(page, '4-item');
  }

  // Back to the grid; a reload reuses the session (no second use, no
  // password again).
  await page.locator('#back-button').click();
  summary.backFromItem = await cardTitles(page);
  await page.reload();
  await page.locator('#grid .card-button').first().waitFor();
  summary.reload = { passwordForm: await page.locator('#share-password').count(), titles: await cardTitles(page) };
  await ctx.close();

  // 2. The same item shared without a password nor downloads, at phone
  // width.
  const phone = { width: 390, height: 844 };
  const ctx2 = await newContext(browser, phone);
  const p2 = await ctx2.newPage();
  watch(p2);
  await p2.goto(base + '/share/' + cfg.noDownloadToken);
  await p2.locator('#open-button').waitFor();
  const plain = { passwordInputs: await p2.locator('#share-password').count(), landingScroll: await noHorizontalScroll(p2) };
  await p2.locator('#open-button').click();
  await p2.locator('#player').waitFor();
  await p2.waitForFunction(() => document.querySelectorAll('#strip .strip-tile').length >= 3);
  await p2.locator('#metadata').waitFor();
  plain.title = await text(p2.locator('#view-title'));
  plain.downloadButtons = await p2.locator('#download-button').count();
  plain.fields = await p2.locator('dd[data-field]').count();
  plain.itemScroll = await noHorizontalScroll(p2);
  await shot(p2, '5-phone-item');
  summary.plain = plain;
  await ctx2.close();

  // 3. The password form at phone width: no horizontal scroll, reached
  // with Tab from the top of the page.
  const ctx3 = await newContext(browser, phone);
  const p3 = await ctx3.newPage();
  watch(p3);
  await p3.goto(base + '/share/' + cfg.folderToken);
  await p3.locator('#share-password').waitFor();
  const narrow = { scroll: await noHorizontalScroll(p3) };
  await shot(p3, '6-phone-landing');
  // Start from the top of the page (a click on the header moves the
  // keyboard's starting point there; the page had focused the input).
  await p3.locator('.bar .brand').click();
  let tabs = 0;
  for (; tabs < 10; tabs++) {
    if (await p3.evaluate(() => document.activeElement && document.activeElement.id) === 'share-password') break;
    await p3.keyboard.press('Tab');
  }
  narrow.tabsToPassword = tabs;
  narrow.focusVisible = await p3.evaluate(() => document.activeElement.matches(':focus-visible') &&
    getComputedStyle(document.activeElement).outlineStyle !== 'none');
  await p3.keyboard.press('Tab');
  narrow.nextFocus = await p3.evaluate(() => document.activeElement.id);
  summary.narrow = narrow;
  await ctx3.close();

  // 4. A revoked share and an unknown link: a sentence, not a dump.
  const ctx4 = await newContext(browser, { width: 1280, height: 900 });
  const p4 = await ctx4.newPage();
  watch(p4);
  await p4.goto(base + '/share/' + cfg.revokedToken);
  await p4.locator('#gone-title').waitFor();
  summary.revoked = { heading: await text(p4.locator('#gone-title')), forms: await p4.locator('form').count() };
  await shot(p4, '7-revoked');
  await p4.goto(base + '/share/' + cfg.unknownToken);
  await p4.locator('#gone-title').waitFor();
  summary.unknown = { heading: await text(p4.locator('#gone-title')), body: await text(p4.locator('main')) };
  await ctx4.close();
}

// An upload share of a folder, at phone width: opened, the files chosen
// with the keyboard alone (Tab to the drop zone's button, Space, the
// browser's file chooser), one more dropped on the zone; the first
// file's first two chunks fail — the first after the server took it (its
// answer lost), the second before it left — and the page resumes from
// the offset the server answers.
async function uploading(browser, summary) {
  const ctx = await newContext(browser, { width: 390, height: 844 });
  const page = await ctx.newPage();
  watch(page);
  // Every request of the upload API, in order: starts (POST, with the
  // body), HEADs and PATCHes with their offsets, and what came of each.
  const tus = [];
  const byRequest = new Map();
  const isUploads = (u) => /\/share\/api\/uploads(\/|$)/.test(new URL(u).pathname);
  page.on('request', (r) => {
    if (!isUploads(r.url())) return;
    const e = { method: r.method(), path: new URL(r.url()).pathname };
    if (r.method() === 'POST') e.body = r.postDataJSON();
    if (r.method() === 'PATCH') {
      e.offset = Number(r.headers()['upload-offset']);
      e.length = (r.postDataBuffer() || Buffer.alloc(0)).length;
    }
    byRequest.set(r, e);
    tus.push(e);
  });
  page.on('response', async (r) => {
    const e = byRequest.get(r.request());
    if (!e) return;
    e.status = r.status();
    const off = r.headers()['upload-offset'];
    if (off !== undefined) e.answeredOffset = Number(off);
    if (e.method === 'POST' && r.ok()) e.answer = await r.json().catch(() => null);
  });
  page.on('requestfailed', (r) => {
    const e = byRequest.get(r);
    if (e) e.failure = (r.failure() || {}).errorText || 'failed';
  });
  let patches = 0;
  await page.route('**/share/api/uploads/*', async (route) => {
    const r = route.request();
    if (r.method() !== 'PATCH') return route.fallback();
    patches++;
    if (patches === 1) {
      // The server takes the chunk, the page never hears its answer.
      const res = await route.fetch();
      const e = byRequest.get(r) || {};
      e.cut = 'answer lost';
      e.serverStatus = res.status();
      e.serverOffset = Number(res.headers()['upload-offset']);
      return route.abort('connectionreset');
    }
    if (patches === 2) {
      (byRequest.get(r) || {}).cut = 'never sent';
      return route.abort('connectionfailed');
    }
    return route.fallback();
  });

  await page.goto(base + '/share/' + cfg.uploadToken);
  await page.locator('#open-button').waitFor();
  const up = {
    landingTitle: await text(page.locator('h1')),
    openLabel: await text(page.locator('#open-button')),
    intro: await text(page.locator('#upload-intro')),
  };
  await page.locator('#open-button').click();
  await page.locator('#dropzone').waitFor();
  up.title = await text(page.locator('.share-head h1'));
  up.message = await text(page.locator('.share-head .message'));
  up.expiry = await text(page.locator('.share-head .expiry'));
  up.heading = await text(page.locator('#upload-title'));
  up.chooseLabel = await text(page.locator('label[for="upload-input"]'));
  up.inputMultiple = await page.locator('#upload-input').evaluate((i) => i.type === 'file' && i.multiple);
  up.emptyScroll = await noHorizontalScroll(page);
  // Whatever else is on the page: nothing of what is in the folder.
  up.grids = await page.locator('#grid, .card-button, #player').count();
  // The status each file went through (to see the page resume).
  await page.evaluate(() => {
    window.seenStatus = {};
    new MutationObserver(() => {
      for (const li of document.querySelectorAll('.upload-file')) {
        const seen = (window.seenStatus[li.id] = window.seenStatus[li.id] || []);
        const now = li.dataset.state + ': ' + li.querySelector('.file-status').textContent;
        if (seen[seen.length - 1] !== now) seen.push(now);
      }
    }).observe(document.getElementById('main'), { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await shot(page, '8-upload-zone');

  // The keyboard alone: from the top of the page, Tab to the button.
  await page.locator('.bar .brand').click();
  let tabs = 0;
  for (; tabs < 10; tabs++) {
    if (await page.evaluate(() => document.activeElement && document.activeElement.id) === 'upload-input') break;
    await page.keyboard.press('Tab');
  }
  up.tabsToChoose = tabs;
  up.focusVisible = await page.evaluate(() => {
    const label = document.querySelector('label[for="upload-input"]');
    return document.activeElement.matches(':focus-visible') && getComputedStyle(label).outlineStyle !== 'none';
  });
  // Space on the focused input opens the browser's chooser; a loaded
  // headless Chromium does not always report it, so when it does not the
  // files are set on the input the keyboard reached (what the chooser does).
  const chooser = await Promise.all([page.waitForEvent('filechooser', { timeout: 5000 }), page.keyboard.press('Space')])
    .then(([c]) => c, () => null);
  up.chooserMultiple = chooser ? chooser.isMultiple() : await page.$eval('#upload-input', (e) => e.multiple);
  if (chooser) await chooser.setFiles(cfg.files);
  else await page.setInputFiles('#upload-input', cfg.files);
  await page.locator('.upload-file').nth(cfg.files.length - 1).waitFor();
  up.listedScroll = await noHorizontalScroll(page);

  // One more, dragged onto the zone.
  const dt = await page.evaluateHandle(([name, body]) => {
    const d = new DataTransfer();
    d.items.add(new File([body], name, { type: 'text/plain' }));
    return d;
  }, [cfg.dropName, cfg.dropText]);
  const zone = page.locator('#dropzone');
  await zone.dispatchEvent('dragenter', { dataTransfer: dt });
  await zone.dispatchEvent('dragover', { dataTransfer: dt });
  up.highlightedOnDrag = await zone.evaluate((z) => z.classList.contains('is-over'));
  await zone.dispatchEvent('drop', { dataTransfer: dt });
  up.highlightedAfterDrop = await zone.evaluate((z) => z.classList.contains('is-over'));

  const all = cfg.files.length + 1;
  await page.waitForFunction((n) => {
    const done = document.querySelectorAll('.upload-file[data-state="done"]').length;
    const failed = document.querySelectorAll('.upload-file[data-state="error"]').length;
    return done + failed === n;
  }, all, { timeout: 120000 });
  await shot(page, '9-uploaded');
  up.files = await page.locator('.upload-file').evaluateAll((lis) => lis.map((li) => {
    const bar = li.querySelector('progress');
    return {
      name: li.querySelector('.file-name').textContent,
      state: li.dataset.state,
      status: li.querySelector('.file-status').textContent,
      progress: bar.value,
      max: bar.max,
      progressLabel: bar.getAttribute('aria-label'),
      percent: li.querySelector('.percent').textContent,
      statuses: (window.seenStatus || {})[li.id] || [],
    };
  }));
  // The last announcement (the live region is filled a moment later).
  await page.waitForFunction(() => /were uploaded/.test(document.getElementById('live').textContent), null,
    { timeout: 5000 }).catch(() => {});
  up.live = await text(page.locator('#live'));
  up.doneScroll = await noHorizontalScroll(page);
  up.tus = tus;
  summary.upload = up;
  await ctx.close();
}

async function main() {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--autoplay-policy=no-user-gesture-required',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
  const summary = {};
  try {
    if (cfg.uploadToken) await uploading(browser, summary);
    else await viewing(browser, summary);
  } finally {
    await browser.close();
  }
  Object.assign(summary, { offHost, cspViolations, pageErrors, consoleErrors, answers });
  console.log(JSON.stringify(summary));
}

main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
