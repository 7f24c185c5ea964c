// Plays a proxy in headless Chromium and seeks in it: what a browser's
// <video> element does with the links Loupe hands out. Run by
// playback_browser_test.go:
//
//   node playback.cjs <page URL on the server's origin> <proxy URL> <chromium> <seek seconds>
//
// Prints a JSON summary on stdout; a failed wait throws (exit 1).
'use strict';
const { chromium } = require('playwright-core');

const [pageURL, proxyURL, executablePath, seekTo] = process.argv.slice(2);
if (!seekTo) {
  console.error('usage: playback.cjs <page URL> <proxy URL> <chromium> <seek seconds>');
  process.exit(2);
}

(async () => {
  const browser = await chromium.launch({ executablePath, headless: true,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(60000);
    // A page on the server's own origin: the frames drawn into a canvas
    // are then readable (not tainted by another origin).
    await page.goto(pageURL);
    await page.setContent('<!doctype html><video id="v" muted playsinline preload="auto"></video><canvas id="c"></canvas>');
    const summary = await page.evaluate(async ({ src, seekTo }) => {
      const v = document.getElementById('v');
      const out = { canPlay: v.canPlayType('video/mp4; codecs="avc1.64001f, mp4a.40.2"') };
      const once = (name) => new Promise((resolve, reject) => {
        v.addEventListener(name, resolve, { once: true });
        v.addEventListener('error', () => reject(new Error('media error ' + (v.error && v.error.code) + ': ' + (v.error && v.error.message))), { once: true });
      });
      const loaded = once('loadeddata');
      v.src = src;
      await loaded;
      out.duration = v.duration;
      out.width = v.videoWidth;
      out.height = v.videoHeight;
      // Seek: the element asks for the bytes it needs (HTTP ranges).
      const seeked = once('seeked');
      v.currentTime = seekTo;
      await seeked;
      out.seeked = true;
      out.afterSeek = v.currentTime;
      // A frame decoded at the new position: drawn, its pixels not all one.
      const c = document.getElementById('c');
      c.width = 64; c.height = 36;
      const g = c.getContext('2d');
      g.drawImage(v, 0, 0, 64, 36);
      const px = g.getImageData(0, 0, 64, 36).data;
      const colours = new Set();
      for (let i = 0; i < px.length; i += 4) colours.add((px[i] >> 4) + ',' + (px[i + 1] >> 4) + ',' + (px[i + 2] >> 4));
      out.colours = colours.size;
      // Playing moves the time on.
      await v.play();
      const from = v.currentTime;
      await new Promise((r) => setTimeout(r, 1500));
      out.advanced = v.currentTime - from;
      v.pause();
      return out;
    }, { src: proxyURL, seekTo: Number(seekTo) });
    console.log(JSON.stringify(summary));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
