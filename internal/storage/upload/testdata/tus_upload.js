// Uploads a generated file to Loupe with tus-js-client (a client nobody
// here wrote), aborts midway, resumes with the same fingerprint from its URL
// storage (on a second server when RESUME_ENDPOINT is set), and prints what
// happened as JSON. The file is never stored: its bytes are the AES-128-CTR
// keystream of a fixed key from offset 0, generated for any range asked
// (the Go test hashes the same stream).
//
// Environment: ENDPOINT (the tus endpoint), RESUME_ENDPOINT, API_KEY,
// ITEM_ID, SIZE (bytes), CHUNK (bytes per PATCH), KEY_HEX (16 bytes).
'use strict';
const crypto = require('crypto');
const tus = require('tus-js-client');

const size = Number(process.env.SIZE);
const chunk = Number(process.env.CHUNK);
const key = Buffer.from(process.env.KEY_HEX, 'hex');

// bytes answers [start, end) of the generated file.
function bytes(start, end) {
  const block = Math.floor(start / 16);
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(block), 8);
  const c = crypto.createCipheriv('aes-128-ctr', key, iv);
  const skip = start - block * 16;
  const out = c.update(Buffer.alloc(end - start + skip));
  return out.subarray(skip);
}

const fileReader = {
  openFile() {
    return Promise.resolve({
      size,
      slice(start, end) {
        end = Math.min(end, size);
        const value = bytes(start, end);
        value.size = value.length;
        return Promise.resolve({ value, done: end >= size });
      },
      close() {},
    });
  },
};

// An in-memory URL storage: what a browser keeps in localStorage.
const stored = new Map();
const urlStorage = {
  findAllUploads: () => Promise.resolve([...stored.values()]),
  findUploadsByFingerprint: (fp) => Promise.resolve([...stored.values()].filter((u) => u.fingerprint === fp)),
  removeUpload: (k) => { stored.delete(k); return Promise.resolve(); },
  addUpload: (fp, u) => { const k = 'tus::' + fp + '::' + stored.size; stored.set(k, { ...u, fingerprint: fp, urlStorageKey: k }); return Promise.resolve(k); },
};

function options(endpoint, extra) {
  return {
    endpoint,
    chunkSize: chunk,
    retryDelays: [0, 200, 500, 1000],
    headers: { Authorization: 'Bearer ' + process.env.API_KEY },
    metadata: { itemId: process.env.ITEM_ID, filename: 'generated.bin', filetype: 'video/quicktime' },
    fileReader,
    urlStorage,
    fingerprint: () => Promise.resolve('loupe-generated-' + size),
    removeFingerprintOnSuccess: true,
    ...extra,
  };
}

async function main() {
  const started = Date.now();
  const result = {};
  // First attempt: abort in the middle of a PATCH past half the file.
  const abortAt = Math.floor(size / 2) + Math.floor(chunk / 3);
  await new Promise((resolve, reject) => {
    const up = new tus.Upload({}, options(process.env.ENDPOINT, {
      onProgress(sent) {
        if (!result.abortedAt && sent >= abortAt) {
          result.abortedAt = sent;
          result.uploadUrl = up.url;
          up.abort(false).then(resolve, reject); // the request is cut (mid-body, unless the server has read it all)
        }
      },
      onError: reject,
      onSuccess: () => reject(new Error('finished before the abort')),
    }));
    up.start();
  });
  // The stored URL is on the first server; a load balancer would send the
  // resumed requests anywhere: here, to RESUME_ENDPOINT's server.
  if (process.env.RESUME_ENDPOINT) {
    const from = new URL(process.env.ENDPOINT).origin;
    const to = new URL(process.env.RESUME_ENDPOINT).origin;
    for (const u of stored.values()) u.uploadUrl = u.uploadUrl.replace(from, to);
  }
  await new Promise((resolve, reject) => {
    const up = new tus.Upload({}, options(process.env.RESUME_ENDPOINT || process.env.ENDPOINT, {
      onChunkComplete(_, acknowledged) {
        if (result.resumedFrom === undefined) result.resumedFrom = acknowledged - _;
      },
      onError: reject,
      onSuccess: () => { result.url = up.url; resolve(); },
    }));
    up.findPreviousUploads().then((previous) => {
      if (previous.length !== 1) return reject(new Error('no previous upload found: ' + previous.length));
      up.resumeFromPreviousUpload(previous[0]);
      up.start();
    }, reject);
  });
  result.ms = Date.now() - started;
  result.remaining = stored.size;
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
