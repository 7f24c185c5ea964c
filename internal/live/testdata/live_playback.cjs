// Plays a recording's growing HLS proxy in headless Chromium while it
// records, as a web player does (hls.js over Media Source Extensions):
// it starts at the recording's start, a frame is drawn, playing moves on,
// and the playlist's length grows as the recording goes. Run by
// recorder_test.go:
//
//   node live_playback.cjs <page URL on the server's origin> <playlist URL> <chromium> <watch seconds>
//
// Prints a JSON summary on stdout; a failed wait throws (exit 1).
'use strict';
const { chromium } = require('playwright-core');

const [pageURL, playlistURL, executablePath, watch] = process.argv.slice(2);
if (!watch) {
  console.error('usage: live_playback.cjs <page URL> <playlist URL> <chromium> <watch seconds>');
  process.exit(2);
}

(async () => {
  const browser = await chromium.launch({ executablePath, headless: true,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(60000);
    // The server's own origin: the frames drawn are readable.
    await page.goto(pageURL);
    await page.setContent('<!doctype html><video id="v" muted playsinline></video><canvas id="c"></canvas>');
    await page.addScriptTag({ path: require.resolve('hls.js/dist/hls.min.js') });
    const summary = await page.evaluate(async ({ src, watch }) => {
      const v = document.getElementById('v');
      const out = { supported: Hls.isSupported() };
      // From the recording's start, not its live edge.
      const hls = new Hls({ startPosition: 0 });
      const length = () => {
        const l = hls.levels && hls.levels[0];
        return l && l.details ? l.details.totalduration : 0;
      };
      const errors = [];
      hls.on(Hls.Events.ERROR, (_, d) => { if (d.fatal) errors.push(d.type + ': ' + d.details); });
      const loaded = new Promise((resolve, reject) => {
        v.addEventListener('loadeddata', resolve, { once: true });
        v.addEventListener('error', () => reject(new Error('media error ' + (v.error && v.error.code))), { once: true });
        setTimeout(() => reject(new Error('no data in 30 s: ' + errors.join('; '))), 30000);
      });
      hls.loadSource(src);
      hls.attachMedia(v);
      await loaded;
      out.startedAt = v.currentTime;
      out.width = v.videoWidth;
      out.height = v.videoHeight;
      out.lengthFirst = length();
      await v.play();
      const from = v.currentTime;
      await new Promise((r) => setTimeout(r, watch * 1000));
      out.advanced = v.currentTime - from;
      out.lengthLater = length();
      // A frame as it plays: drawn, its pixels not all one colour.
      const c = document.getElementById('c');
      c.width = 64; c.height = 36;
      const g = c.getContext('2d');
      g.drawImage(v, 0, 0, 64, 36);
      const px = g.getImageData(0, 0, 64, 36).data;
      const colours = new Set();
      for (let i = 0; i < px.length; i += 4) colours.add((px[i] >> 4) + ',' + (px[i + 1] >> 4) + ',' + (px[i + 2] >> 4));
      out.colours = colours.size;
      out.errors = errors;
      hls.destroy();
      return out;
    }, { src: playlistURL, watch: Number(watch) });
    console.log(JSON.stringify(summary));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
