// What pages on two other origins can do with Loupe in headless Chromium:
// call /graphql and REST with a key, and read the frames of a proxy drawn
// into a canvas. Run by cors_browser_test.go:
//
//   node cors.cjs <chromium> <API URL> <key header> <key> <item id> <proxy URL> <page URL>...
//
// Prints a JSON object, one summary per page URL; a failed wait throws
// (exit 1).
'use strict';
const { chromium } = require('playwright-core');

const [executablePath, api, keyHeader, key, itemID, proxyURL, ...pages] = process.argv.slice(2);
if (pages.length === 0) {
  console.error('usage: cors.cjs <chromium> <API URL> <key header> <key> <item id> <proxy URL> <page URL>...');
  process.exit(2);
}

// Runs in the page: every call and read a frontend on that origin makes,
// each answered by what it got or by the error the browser raised.
async function tryAll({ api, keyHeader, key, itemID, proxyURL }) {
  const out = {};
  const attempt = async (name, f) => {
    try {
      out[name] = await f();
    } catch (e) {
      out[name] = { error: e.name + ': ' + e.message };
    }
  };
  // GraphQL as a frontend calls it: POST, JSON, the key in the operator's
  // header (so the browser asks first: a preflight).
  await attempt('graphql', async () => {
    const res = await fetch(api + '/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [keyHeader]: key },
      body: JSON.stringify({ query: 'query($id: ID!) { item(id: $id) { title } }', variables: { id: itemID } }),
    });
    const body = await res.json();
    return { status: res.status, title: body.data && body.data.item && body.data.item.title,
      requestId: res.headers.get('X-Request-Id') };
  });
  // REST with a bearer key.
  await attempt('rest', async () => {
    const res = await fetch(api + '/api/v1/items/' + itemID, { headers: { Authorization: 'Bearer ' + key } });
    return { status: res.status, title: (await res.json()).title };
  });
  // A frame of the proxy, drawn and read back: the pixel at the centre.
  const frame = async (crossOrigin) => {
    const v = document.createElement('video');
    v.muted = true;
    if (crossOrigin) v.crossOrigin = 'anonymous';
    const loaded = new Promise((resolve, reject) => {
      v.addEventListener('loadeddata', resolve, { once: true });
      v.addEventListener('error', () => reject(new Error('media error ' + (v.error && v.error.code))), { once: true });
    });
    v.src = proxyURL;
    await loaded;
    const seeked = new Promise((resolve) => v.addEventListener('seeked', resolve, { once: true }));
    v.currentTime = 1;
    await seeked;
    const c = document.createElement('canvas');
    c.width = v.videoWidth; c.height = v.videoHeight;
    const g = c.getContext('2d');
    g.drawImage(v, 0, 0);
    const px = g.getImageData(c.width >> 1, c.height >> 1, 1, 1).data;
    return { rgb: [px[0], px[1], px[2]] };
  };
  await attempt('frame', () => frame(true));
  // Without crossorigin the video plays whatever the server says, but
  // what it draws is the other origin's: unreadable.
  await attempt('frameWithoutCORS', () => frame(false));
  return out;
}

(async () => {
  const browser = await chromium.launch({ executablePath, headless: true,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu'] });
  try {
    const summary = {};
    for (const pageURL of pages) {
      const page = await browser.newPage();
      page.setDefaultTimeout(60000);
      await page.goto(pageURL);
      summary[pageURL] = await page.evaluate(tryAll, { api, keyHeader, key, itemID, proxyURL });
      await page.close();
    }
    console.log(JSON.stringify(summary));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
