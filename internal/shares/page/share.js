// The page someone without an account opens from a share link,
// <server>/share/<token> (docs/shares.md). The document is the same for
// every link: this script reads the token from the address and asks the
// outsider's API (/share/api/…). Plain ES2020, no framework, no build
// step; everything is built with DOM calls (never innerHTML), so that
// nothing a sharer typed can run as markup, and nothing is inline (the
// page's Content-Security-Policy allows scripts and styles only from
// files).
'use strict';

(() => {
  const main = document.getElementById('main');
  const live = document.getElementById('live');

  // The token is the page's last path segment (/share/<token>, behind a
  // proxy's prefix too). API paths are relative to the page: "api/…" is
  // /share/api/….
  const token = (() => {
    const parts = location.pathname.split('/').filter(Boolean);
    try {
      return decodeURIComponent(parts[parts.length - 1] || '');
    } catch (e) {
      return '';
    }
  })();
  const enc = encodeURIComponent;

  // What the server said about the link and the open session.
  const state = { link: null, share: null, root: null, renderID: 0 };

  // The sentences the server answers (410) for a share that no longer
  // opens; the link's GET answers the state alone.
  const closedText = {
    expired: 'This share has expired.',
    revoked: 'This share was revoked by the person who made it.',
    exhausted: 'This share was opened as many times as it allows.',
  };

  // ---- DOM helpers -------------------------------------------------------

  // el builds an element: attrs are properties, except class, on (event
  // listeners), and aria-*, data-*, role and for (attributes); children
  // are nodes or text.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'on') for (const [name, fn] of Object.entries(v)) e.addEventListener(name, fn);
      else if (k.startsWith('aria-') || k.startsWith('data-') || k === 'role' || k === 'for') {
        e.setAttribute(k, v === true ? 'true' : String(v));
      } else e[k] = v;
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  function announce(text) {
    live.textContent = '';
    // A fresh text node, so that the same message twice is read twice.
    setTimeout(() => { live.textContent = text; }, 50);
  }

  // show replaces the page's content, moves the focus to its heading (for
  // keyboards and screen readers) and names the tab.
  function show(nodes, title) {
    main.replaceChildren(...nodes);
    if (title) document.title = title + ' · Loupe';
    const h = main.querySelector('h1, h2');
    if (h) {
      h.tabIndex = -1;
      h.focus({ preventScroll: false });
    }
  }

  // clock is seconds as m:ss (h:mm:ss past an hour).
  function clock(s) {
    s = Math.max(0, Math.floor(Number(s) || 0));
    const h = Math.floor(s / 3600);
    const m = Math.floor(s / 60) % 60;
    const ss = String(s % 60).padStart(2, '0');
    return h > 0 ? h + ':' + String(m).padStart(2, '0') + ':' + ss : String(m).padStart(2, '0') + ':' + ss;
  }

  function formatDate(iso, withTime) {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return '';
    const opts = withTime ? { dateStyle: 'long', timeStyle: 'short' } : { dateStyle: 'long' };
    try {
      return new Intl.DateTimeFormat(undefined, opts).format(d);
    } catch (e) {
      return d.toLocaleString();
    }
  }

  function timeEl(iso, withTime) {
    return el('time', { dateTime: iso }, formatDate(iso, withTime));
  }

  // ---- the API -----------------------------------------------------------

  class APIError extends Error {
    constructor(status, message, payload, retryAfter) {
      super(message);
      this.status = status;
      this.payload = payload || null;
      this.retryAfter = retryAfter || 0;
    }
  }

  const fallbackMessages = {
    401: 'Open the share’s link first.',
    403: 'This share does not allow that.',
    404: 'This share link does not exist. Check that you copied the whole link.',
    410: 'This share is no longer available.',
    429: 'Too many attempts: wait a moment and try again.',
  };

  async function api(method, path, body) {
    const init = { method, credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (e) {
      throw new APIError(0, 'The server could not be reached. Check your connection and try again.');
    }
    let data = null;
    try {
      data = await res.json();
    } catch (e) {
      // not JSON (a proxy's page, or a route not there yet)
    }
    if (!res.ok) {
      const err = (data && data.error) || {};
      const msg = err.message || fallbackMessages[res.status] || 'Something went wrong (' + res.status + '). Try again later.';
      throw new APIError(res.status, msg, err.payload, Number(res.headers.get('Retry-After')) || 0);
    }
    return data;
  }

  // ---- remembering an open -----------------------------------------------

  // An open counts a use of the share: a reload reuses the session this
  // browser opened for this link rather than opening again. What is kept
  // is a hash of the token (not the token), and the session's share is
  // compared with the link's before it is used (the cookie is the last
  // open's, of whichever link).
  const OPENED_KEY = 'loupe.share.opened';

  function tokenMark() {
    // cyrb53: a marker, not a secret.
    let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
    for (let i = 0; i < token.length; i++) {
      const ch = token.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  }

  function storage() {
    try {
      return window.localStorage;
    } catch (e) {
      return null;
    }
  }

  function sameShare(a, b) {
    return !!a && !!b && a.title === b.title && a.message === b.message && a.access === b.access &&
      a.targetType === b.targetType && a.expiresOn === b.expiresOn && (a.recipient || null) === (b.recipient || null);
  }

  // ---- start -------------------------------------------------------------

  async function start() {
    let link;
    try {
      link = await api('GET', 'api/links/' + enc(token));
    } catch (e) {
      return showProblem(e);
    }
    state.link = link;
    if (link.state !== 'active') return showGone(closedText[link.state] || 'This share is no longer available.');
    const s = storage();
    if (s && s.getItem(OPENED_KEY) === tokenMark()) {
      try {
        const session = await api('GET', 'api/session');
        if (sameShare(session.share, link)) return enter(session);
      } catch (e) {
        if (e.status === 410) return showProblem(e);
        // else: the session ended; open again
      }
    }
    showLanding(link);
  }

  // showProblem shows a link that does not open: unknown, closed, or an
  // error, as a sentence and never a dump.
  function showProblem(e) {
    if (e.status === 410) {
      const st = e.payload && e.payload.state;
      return showGone(e.message || closedText[st] || 'This share is no longer available.');
    }
    if (e.status === 404) {
      return showGone('This share link does not exist.',
        'Check that you copied the whole link, or ask the person who sent it for a new one.');
    }
    return showGone('This share could not be opened.', e.message);
  }

  function showGone(message, detail) {
    document.body.classList.add('gone');
    show([el('section', { class: 'card notice-card', 'aria-labelledby': 'gone-title' },
      el('h1', { id: 'gone-title' }, message),
      detail ? el('p', {}, detail) : el('p', {}, 'Ask the person who shared it with you for a new link.'))],
    'Share unavailable');
  }

  // shareHeader is the share's title, message and expiry.
  function shareHeader(share, level) {
    const head = el('div', { class: 'share-head' },
      el(level || 'h1', { class: 'share-title' }, share.title || 'Shared with you'));
    if (share.recipient) head.append(el('p', { class: 'recipient' }, 'For ' + share.recipient));
    if (share.message) head.append(el('p', { class: 'message' }, share.message));
    if (share.expiresOn) head.append(el('p', { class: 'expiry' }, 'Available until ', timeEl(share.expiresOn, true), '.'));
    return head;
  }

  // showLanding is the link before it is opened: what it is, the password
  // when it needs one, and the explicit open (which counts a use — a link
  // scanner's visit, or a chat preview's, opens nothing).
  function showLanding(link, note) {
    const card = el('section', { class: 'card landing', 'aria-labelledby': 'landing-title' });
    const head = shareHeader(link);
    head.querySelector('h1').id = 'landing-title';
    card.append(head);
    if (note) card.append(el('p', { class: 'notice', role: 'alert' }, note));
    const upload = link.access === 'upload';
    if (upload) {
      card.append(el('p', { class: 'help', id: 'upload-intro' },
        'This link is for sending files to the person who shared it. You will not see what is already there.'));
    }
    const error = el('p', { class: 'error', id: 'open-error', role: 'alert', hidden: true });
    const button = el('button', { type: 'submit', class: 'primary', id: 'open-button' },
      upload ? 'Open to send files' : link.targetType === 'folder' ? 'Open the folder' : 'Open');
    // method post: were the script to let the browser submit it, the
    // password would still not go into an address.
    const form = el('form', { class: 'open-form', id: 'open-form', method: 'post', noValidate: true });
    let input = null;
    if (link.passwordRequired) {
      input = el('input', { type: 'password', id: 'share-password', name: 'password', autocomplete: 'current-password',
        required: true, spellcheck: false, 'aria-describedby': 'password-help open-error' });
      form.append(
        el('label', { for: 'share-password' }, 'Password'),
        el('p', { class: 'help', id: 'password-help' }, 'This share is protected: type the password you were given.'),
        input);
    }
    form.append(el('div', { class: 'actions' }, button), error);
    let waitTimer = 0;
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (button.disabled) return;
      error.hidden = true;
      if (input && !input.value) {
        error.textContent = 'Type the password first.';
        error.hidden = false;
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        return;
      }
      button.disabled = true;
      const label = button.textContent;
      button.textContent = 'Opening…';
      try {
        await api('POST', 'api/links/' + enc(token) + '/open', input ? { password: input.value } : {});
        const s = storage();
        if (s) {
          try { s.setItem(OPENED_KEY, tokenMark()); } catch (e) { /* private mode */ }
        }
        const session = await api('GET', 'api/session');
        history.replaceState(null, '');
        enter(session);
      } catch (e) {
        button.textContent = label;
        if (e.status === 410 || e.status === 404) return showProblem(e);
        error.textContent = e.message;
        error.hidden = false;
        if (input) {
          input.setAttribute('aria-invalid', 'true');
          if (e.status === 401) input.select();
          input.focus();
        }
        if (e.status === 429) {
          // Throttled: the button waits as long as the server asks.
          const wait = Math.max(1, e.retryAfter || 1);
          clearTimeout(waitTimer);
          waitTimer = setTimeout(() => {
            button.disabled = false;
            error.textContent = 'You can try the password again now.';
          }, wait * 1000);
          return;
        }
        button.disabled = false;
      }
    });
    card.append(form);
    show([card], link.title);
    if (input) input.focus();
  }

  // ---- the open share ----------------------------------------------------

  // A view of the share is {view: 'folder'|'item', id, title, trail}: trail
  // is the folders above it, from the share's root. Each is a history
  // entry, so that the browser's Back works too.
  function rootView(root) {
    return { loupe: 1, view: root.itemType === 'folder' ? 'folder' : 'item', id: root.id, title: root.title, trail: [] };
  }

  function enter(session) {
    state.share = session.share;
    state.root = session.root;
    document.body.classList.remove('gone');
    // An upload share shows nothing of what is there: its drop zone only.
    if (session.share.access === 'upload') return showUpload(session);
    let v = history.state;
    if (!v || v.loupe !== 1 || !Array.isArray(v.trail)) v = rootView(session.root);
    history.replaceState(v, '');
    render(v);
  }

  function go(v) {
    history.pushState(v, '');
    render(v);
  }

  window.addEventListener('popstate', (ev) => {
    if (state.share && state.share.access !== 'upload' && ev.state && ev.state.loupe === 1) render(ev.state);
  });

  // failed handles an error while the share is open: a session that ended
  // (401) goes back to the link's page, a share that closed (410) says so.
  function failed(e, where) {
    if (e.status === 401) {
      state.share = null;
      return showLanding(state.link, 'Your visit ended. Open the share again to go on.');
    }
    if (e.status === 410) return showProblem(e);
    where.replaceChildren(el('p', { class: 'error', role: 'alert' },
      e.status === 404 ? 'This is no longer part of the share.' : e.message));
    if (where.classList.contains('view')) {
      where.append(el('button', { type: 'button', class: 'link', on: { click: () => go(rootView(state.root)) } },
        'Go to the start of the share'));
    }
    return null;
  }

  async function render(v) {
    const id = ++state.renderID;
    const body = el('div', { class: 'view' });
    const crumbs = breadcrumbs(v);
    const head = shareHeader(state.share);
    show([el('section', { class: 'share' }, head, crumbs, body)], v.title || state.share.title);
    try {
      if (v.view === 'folder') await showFolder(v, body, id);
      else await showItem(v, body, id);
    } catch (e) {
      if (id === state.renderID) failed(e, body);
    }
  }

  // breadcrumbs: the way back up, from the share's root, as buttons.
  function breadcrumbs(v) {
    if (!v.trail.length) return null;
    const nav = el('nav', { class: 'crumbs', 'aria-label': 'Where you are' });
    const list = el('ol', {});
    const parent = v.trail[v.trail.length - 1];
    v.trail.forEach((f, i) => {
      list.append(el('li', {}, el('button', { type: 'button', class: 'link',
        on: { click: () => go({ loupe: 1, view: 'folder', id: f.id, title: f.title, trail: v.trail.slice(0, i) }) } },
      f.title)));
    });
    list.append(el('li', { 'aria-current': 'page' }, v.title));
    nav.append(
      el('button', { type: 'button', class: 'back', id: 'back-button',
        on: { click: () => go({ loupe: 1, view: 'folder', id: parent.id, title: parent.title, trail: v.trail.slice(0, -1) }) } },
      '← Back to ' + parent.title),
      list);
    return nav;
  }

  const typeNames = { video: 'Video', audio: 'Audio', image: 'Image', folder: 'Folder', document: 'Document' };

  function typeLabel(t) {
    return typeNames[t] || (t ? t.charAt(0).toUpperCase() + t.slice(1) : 'File');
  }

  // focusTitle moves the focus to a view's heading once it is drawn (the
  // click that led there left it on a button now gone).
  function focusTitle(h) {
    h.tabIndex = -1;
    h.focus({ preventScroll: true });
  }

  // ---- a folder: a grid of its items -------------------------------------

  async function showFolder(v, body, id) {
    const grid = el('ul', { class: 'grid', id: 'grid', 'aria-label': 'Items in ' + v.title });
    const more = el('button', { type: 'button', class: 'more', hidden: true }, 'Show more');
    const empty = el('p', { class: 'empty', hidden: true }, 'This folder is empty.');
    const title = el('h2', { class: 'view-title', id: 'view-title' }, v.trail.length ? v.title : 'In this folder');
    body.append(title, grid, empty, more);
    focusTitle(title);
    let next = '';
    const page = async () => {
      const q = 'size=50' + (next ? '&nextToken=' + enc(next) : '');
      const data = await api('GET', 'api/folders/' + enc(v.id) + '/content?' + q);
      if (id !== state.renderID) return;
      for (const it of data.items || []) grid.append(card(it, v));
      next = data.nextToken || '';
      more.hidden = !next;
      empty.hidden = grid.children.length > 0;
    };
    more.addEventListener('click', async () => {
      more.disabled = true;
      try {
        await page();
      } catch (e) {
        failed(e, body);
      }
      more.disabled = false;
    });
    await page();
  }

  function card(it, v) {
    const thumb = it.thumbnail
      ? el('img', { src: it.thumbnail, alt: '', loading: 'lazy', decoding: 'async' })
      : el('span', { class: 'placeholder', 'aria-hidden': 'true' }, typeLabel(it.itemType));
    const open = () => go({ loupe: 1, view: it.itemType === 'folder' ? 'folder' : 'item', id: it.id, title: it.title,
      trail: v.trail.concat([{ id: v.id, title: v.title }]) });
    return el('li', { class: 'tile-card' + (it.itemType === 'folder' ? ' is-folder' : '') },
      el('button', { type: 'button', class: 'card-button', 'data-id': it.id, on: { click: open } },
        el('span', { class: 'thumb' }, thumb),
        el('span', { class: 'card-title' }, it.title),
        el('span', { class: 'card-type' }, typeLabel(it.itemType))));
  }

  // ---- an item -----------------------------------------------------------

  const processing = new Set(['queued', 'processing', 'pending', 'running', 'waiting', 'uploading']);

  async function showItem(v, body, id) {
    const it = v.id === state.root.id ? state.root : await api('GET', 'api/items/' + enc(v.id));
    if (id !== state.renderID) return;
    // The share's own item under the share's own title: named once.
    const same = !v.trail.length && it.title === state.share.title;
    const title = el('h2', { class: 'view-title' + (same ? ' visually-hidden' : ''), id: 'view-title' }, it.title);
    const stage = el('div', { class: 'stage' });
    const primary = el('div', { class: 'primary' }, stage);
    const side = el('div', { class: 'details' });
    body.append(title, el('div', { class: 'item-layout' }, primary, side));
    focusTitle(title);
    let media = null;
    if ((it.itemType === 'video' || it.itemType === 'audio') && it.proxy) {
      if (it.itemType === 'video') {
        media = el('video', { id: 'player', controls: true, preload: 'metadata', playsInline: true, class: 'media' });
        if (it.thumbnail) media.poster = it.thumbnail;
      } else {
        if (it.waveform) stage.append(el('img', { class: 'waveform', src: it.waveform, alt: 'Waveform of ' + it.title }));
        else if (it.thumbnail) stage.append(el('img', { class: 'still', src: it.thumbnail, alt: '' }));
        media = el('audio', { id: 'player', controls: true, preload: 'metadata', class: 'media audio' });
      }
      media.setAttribute('aria-label', it.title);
      media.src = it.proxy;
      stage.append(media);
      if (it.strip && it.itemType === 'video') {
        const strip = el('div', { class: 'strip', id: 'strip', role: 'group', 'aria-label': 'Thumbnails: choose one to jump there' });
        primary.append(strip);
        drawStrip(it.strip, media, strip);
      }
    } else if (it.itemType === 'image' && it.proxy) {
      // An animated image: its proxy is its frames as a video, to loop.
      const anim = el('video', { class: 'media', controls: true, loop: true, muted: true, autoplay: true, playsInline: true });
      anim.setAttribute('aria-label', it.title);
      if (it.thumbnail) anim.poster = it.thumbnail;
      anim.src = it.proxy;
      stage.append(anim);
    } else if (it.itemType === 'image' && it.thumbnail) {
      stage.append(el('img', { class: 'still', src: it.thumbnail, alt: it.title }));
    } else {
      if (it.thumbnail) stage.append(el('img', { class: 'still', src: it.thumbnail, alt: '' }));
      const note = processing.has(it.state)
        ? 'This item is still being prepared. Come back in a little while.'
        : 'No preview of this item can be shown here.';
      stage.append(el('p', { class: 'notice' }, note));
    }

    if ((it.canDownload || []).includes('proxy')) side.append(downloadButton(it));
    side.append(metadataList(it));
    if (it.canComment) {
      const holder = el('div', { class: 'comments-holder' });
      side.append(holder);
      comments(it, media, holder);
    }
  }

  function downloadButton(it) {
    const error = el('p', { class: 'error', role: 'alert', hidden: true });
    const button = el('button', { type: 'button', class: 'primary', id: 'download-button' }, 'Download');
    button.addEventListener('click', async () => {
      error.hidden = true;
      button.disabled = true;
      button.textContent = 'Preparing the download…';
      try {
        const d = await api('POST', 'api/items/' + enc(it.id) + '/downloads', { file: 'proxy' });
        // The link answers as an attachment: the browser saves it, the
        // page stays.
        const a = el('a', { href: d.url, download: d.fileName || '', rel: 'noopener noreferrer', hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        announce('The download of ' + (d.fileName || it.title) + ' started.');
      } catch (e) {
        if (e.status === 401 || e.status === 410) return failed(e, error);
        error.textContent = e.message;
        error.hidden = false;
      } finally {
        button.disabled = false;
        button.textContent = 'Download';
      }
    });
    return el('div', { class: 'download' }, button,
      el('p', { class: 'help' }, 'A viewing copy of the file (not the original).'), error);
  }

  // fieldLabel names a metadata field: its name as words.
  function fieldLabel(name) {
    const words = String(name).replace(/[_-]+/g, ' ').trim();
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  function fieldValue(v) {
    if (v === null || v === undefined) return '—';
    if (Array.isArray(v)) return v.map(fieldValue).join(', ');
    if (typeof v === 'boolean') return v ? 'Yes' : 'No';
    if (typeof v === 'object') {
      if (typeof v.label === 'string') return v.label;
      if (typeof v.name === 'string') return v.name;
      if (typeof v.value !== 'undefined' && typeof v.value !== 'object') return String(v.value);
      return JSON.stringify(v);
    }
    return String(v);
  }

  function metadataList(it) {
    const dl = el('dl', { class: 'metadata', id: 'metadata' },
      el('dt', {}, 'Type'), el('dd', {}, typeLabel(it.itemType)));
    if (it.mediaCreatedOn) dl.append(el('dt', {}, 'Recorded'), el('dd', {}, timeEl(it.mediaCreatedOn, false)));
    dl.append(el('dt', {}, 'Added'), el('dd', {}, timeEl(it.createdOn, false)));
    for (const [name, value] of Object.entries(it.metadata || {})) {
      dl.append(el('dt', { 'data-field': name }, fieldLabel(name)), el('dd', { 'data-field': name }, fieldValue(value)));
    }
    return dl;
  }

  // ---- the thumbnail strip -----------------------------------------------

  // vttSeconds reads WebVTT's [hh:]mm:ss.ttt.
  function vttSeconds(t) {
    const parts = t.split(':').map(Number);
    return parts.reduce((acc, p) => acc * 60 + p, 0);
  }

  // parseStrip reads the strip's WebVTT map: each cue a time range and a
  // sprite ("sheet.jpg#xywh=x,y,w,h"), relative to the map's own URL (a
  // directory link: the sheets beside it answer to it).
  function parseStrip(text, base) {
    const cues = [];
    const lines = text.replace(/\r\n?/g, '\n').split('\n');
    const timing = /^\s*((?:\d+:)?\d{1,2}:\d{2}(?:\.\d+)?)\s+-->\s+((?:\d+:)?\d{1,2}:\d{2}(?:\.\d+)?)/;
    for (let i = 0; i < lines.length; i++) {
      const m = timing.exec(lines[i]);
      if (!m) continue;
      const ref = (lines[i + 1] || '').trim();
      if (!ref) continue;
      const hash = ref.indexOf('#');
      const file = hash < 0 ? ref : ref.slice(0, hash);
      const xywh = /xywh=(\d+),(\d+),(\d+),(\d+)/.exec(hash < 0 ? '' : ref.slice(hash));
      let url;
      try {
        url = new URL(file, base).href;
      } catch (e) {
        continue;
      }
      cues.push({ start: vttSeconds(m[1]), end: vttSeconds(m[2]), url,
        x: xywh ? +xywh[1] : 0, y: xywh ? +xywh[2] : 0, w: xywh ? +xywh[3] : 0, h: xywh ? +xywh[4] : 0 });
    }
    return cues;
  }

  function imageSize(url) {
    return new Promise((resolve) => {
      const img = new Image();
      img.onload = () => resolve({ w: img.naturalWidth, h: img.naturalHeight });
      img.onerror = () => resolve(null);
      img.src = url;
    });
  }

  const TILE_WIDTH = 112;

  async function drawStrip(stripURL, media, strip) {
    let cues;
    try {
      const res = await fetch(stripURL, { credentials: 'omit', cache: 'default' });
      if (!res.ok) throw new Error('strip ' + res.status);
      cues = parseStrip(await res.text(), stripURL);
    } catch (e) {
      strip.remove();
      return;
    }
    if (!cues.length) {
      strip.remove();
      return;
    }
    const sheets = new Map();
    for (const c of cues) if (!sheets.has(c.url)) sheets.set(c.url, imageSize(c.url));
    const tiles = [];
    for (const c of cues) {
      const sheet = await sheets.get(c.url);
      if (!sheet) continue;
      const w = c.w || sheet.w;
      const h = c.h || sheet.h;
      const k = TILE_WIDTH / w;
      const tile = el('button', { type: 'button', class: 'strip-tile', 'data-start': c.start,
        'aria-label': 'Jump to ' + clock(c.start), title: clock(c.start),
        on: { click: () => seek(media, c.start) } },
      el('span', { class: 'strip-time', 'aria-hidden': 'true' }, clock(c.start)));
      // CSSOM, not a style attribute: allowed under style-src 'self'.
      tile.style.width = TILE_WIDTH + 'px';
      tile.style.height = Math.round(h * k) + 'px';
      tile.style.backgroundImage = 'url("' + c.url.replace(/["\\\n]/g, encodeURIComponent) + '")';
      tile.style.backgroundSize = (sheet.w * k) + 'px ' + (sheet.h * k) + 'px';
      tile.style.backgroundPosition = (-c.x * k) + 'px ' + (-c.y * k) + 'px';
      tiles.push({ tile, start: c.start, end: c.end });
      strip.append(tile);
    }
    const mark = () => {
      const t = media.currentTime;
      for (const x of tiles) {
        if (t >= x.start && t < x.end) x.tile.setAttribute('aria-current', 'true');
        else x.tile.removeAttribute('aria-current');
      }
    };
    media.addEventListener('timeupdate', mark);
    media.addEventListener('seeked', mark);
    mark();
  }

  function seek(media, t) {
    if (!media) return;
    media.currentTime = t;
    announce('Moved to ' + clock(t) + '.');
  }

  // ---- comments ----------------------------------------------------------

  const NAME_KEY = 'loupe.share.name';

  async function comments(it, media, holder) {
    const path = 'api/items/' + enc(it.id) + '/comments';
    let data;
    try {
      data = await api('GET', path);
    } catch (e) {
      if (e.status === 404) return; // not on this server (yet)
      if (e.status === 401 || e.status === 410) return failed(e, holder);
      holder.append(el('p', { class: 'error' }, 'The comments could not be loaded: ' + e.message));
      return;
    }
    const list = el('ol', { class: 'comment-list', id: 'comment-list' });
    const none = el('p', { class: 'empty' }, 'No comments yet.');
    const add = (c) => {
      none.hidden = true;
      list.append(commentItem(c, media));
    };
    // Oldest first, a page at a time.
    let next = '';
    const more = el('button', { type: 'button', class: 'more', hidden: true }, 'Show more comments');
    const took = (d) => {
      for (const c of (d && d.comments) || []) add(c);
      next = (d && d.nextToken) || '';
      more.hidden = !next;
      none.hidden = list.children.length > 0;
    };
    more.addEventListener('click', async () => {
      more.disabled = true;
      try {
        took(await api('GET', path + '?nextToken=' + enc(next)));
      } catch (e) {
        if (e.status === 401 || e.status === 410) return failed(e, holder);
      } finally {
        more.disabled = false;
      }
    });
    took(data);

    const s = storage();
    // Left empty, the server signs with the link's recipient, else "Guest".
    const name = el('input', { type: 'text', id: 'comment-name', name: 'name', autocomplete: 'name', maxLength: 100,
      value: (s && s.getItem(NAME_KEY)) || '', 'aria-describedby': 'comment-name-help' });
    const text = el('textarea', { id: 'comment-text', name: 'text', rows: 3, maxLength: 5000, required: true });
    const error = el('p', { class: 'error', role: 'alert', hidden: true });
    const submit = el('button', { type: 'submit', class: 'primary', id: 'comment-submit' }, 'Add comment');
    const form = el('form', { class: 'comment-form', id: 'comment-form', method: 'post', noValidate: true },
      el('label', { for: 'comment-name' }, 'Your name'),
      el('p', { class: 'help', id: 'comment-name-help' }, 'Shown with your comment to the people who shared this.'), name,
      el('label', { for: 'comment-text' }, 'Comment'), text);
    let at = null;
    let atTime = null;
    if (media) {
      at = el('input', { type: 'checkbox', id: 'comment-at', checked: true });
      atTime = el('output', { id: 'comment-time', for: 'comment-at' }, clock(media.currentTime));
      const tick = () => { atTime.textContent = clock(media.currentTime); };
      media.addEventListener('timeupdate', tick);
      media.addEventListener('seeked', tick);
      form.append(el('div', { class: 'check' }, at, el('label', { for: 'comment-at' }, 'At ', atTime)));
    }
    form.append(el('div', { class: 'actions' }, submit), error);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      error.hidden = true;
      const body = text.value.trim();
      if (!body) {
        error.textContent = 'Write a comment first.';
        error.hidden = false;
        text.focus();
        return;
      }
      const start = media && at.checked ? Math.round(media.currentTime * 1000) / 1000 : null;
      const who = name.value.trim();
      if (s) {
        try { s.setItem(NAME_KEY, who); } catch (e) { /* private mode */ }
      }
      submit.disabled = true;
      try {
        const req = { text: body, startSecond: start };
        if (who) req.name = who;
        const c = await api('POST', path, req);
        add(c);
        text.value = '';
        announce('Your comment was added.');
      } catch (e) {
        if (e.status === 401 || e.status === 410) return failed(e, holder);
        error.textContent = e.message;
        error.hidden = false;
      } finally {
        submit.disabled = false;
      }
    });
    holder.append(el('section', { class: 'comments', 'aria-labelledby': 'comments-title' },
      el('h3', { id: 'comments-title' }, 'Comments'), list, more, none, form));
  }

  function commentItem(c, media) {
    const head = el('div', { class: 'comment-head' });
    if (typeof c.startSecond === 'number' && media) {
      head.append(el('button', { type: 'button', class: 'at', 'data-start': c.startSecond,
        'aria-label': 'Play from ' + clock(c.startSecond), on: { click: () => seek(media, c.startSecond) } },
      clock(c.startSecond)));
    } else if (typeof c.startSecond === 'number') {
      head.append(el('span', { class: 'at' }, clock(c.startSecond)));
    }
    head.append(el('span', { class: 'who' }, c.authorName || (c.fromOutsider ? 'Guest' : 'Team')));
    if (c.createdOn) head.append(timeEl(c.createdOn, true));
    return el('li', { class: 'comment' + (c.fromOutsider ? ' outsider' : ''), 'data-id': c.id },
      head, el('p', { class: 'comment-text' }, c.text));
  }

  // ---- an upload share: the drop zone ------------------------------------

  // Each file is announced to the server first (POST api/uploads: a new
  // item in the shared folder, or the shared item's new original), then
  // sent by tus 1.0 in chunks: a PATCH per chunk from the offset the
  // server has stored, through XMLHttpRequest for its progress. A chunk
  // that fails (the connection, the server for a moment) is retried from
  // the offset a HEAD answers — what the server really stored, which may
  // be more or less than what left — after a pause that doubles; past the
  // last, the file shows the error and a way to try again, which resumes
  // where the server stands. Files go one after another.
  const CHUNK_SIZE = 5 * 1024 * 1024;
  const RETRY_DELAYS = [1000, 2000, 4000, 8000];
  // A chunk whose bytes stop leaving for this long is given up and
  // retried: a dead connection may take minutes to say so.
  const STALL_MS = 60000;
  const LOST = 'The connection to the server was lost.';

  let uploading = false; // a file is being sent: leaving the page asks first
  let dropGuard = false;

  const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

  // retryable: what a pause and a HEAD may mend (the connection, a
  // mismatched offset, another request holding the upload, the server).
  function retryable(status) {
    return status === 0 || status === 409 || status === 423 || status === 429 || status >= 500;
  }

  function uploadError(status, message, retryAfter) {
    const e = new APIError(status, message, null, retryAfter);
    e.retry = retryable(status);
    return e;
  }

  // offsetOf reads an Upload-Offset header: -1 when it is not one.
  function offsetOf(h) {
    const n = Number(h);
    return h !== null && h !== '' && Number.isSafeInteger(n) && n >= 0 ? n : -1;
  }

  // messageOf is an error answer's sentence (the envelope's message).
  function messageOf(status, text) {
    try {
      const m = JSON.parse(text).error.message;
      if (typeof m === 'string' && m) return m;
    } catch (e) {
      // not the envelope
    }
    return fallbackMessages[status] || 'Something went wrong (' + status + '). Try again later.';
  }

  // uploadURL is where an upload's bytes go. The server names the path
  // from its root; the page's own relative form is the same route behind
  // a proxy's prefix too.
  function uploadURL(up) {
    const id = String(up.uploadId || '');
    if (id && up.uploadUrl === '/share/api/uploads/' + id) return 'api/uploads/' + enc(id);
    return up.uploadUrl;
  }

  function formatBytes(n) {
    const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
    let i = 0;
    while (n >= 1000 && i < units.length - 1) {
      n /= 1000;
      i++;
    }
    return (i === 0 ? String(n) : n.toFixed(n < 10 ? 1 : 0)) + ' ' + units[i];
  }

  // headOffset asks the server where an upload stands.
  async function headOffset(f) {
    let res;
    try {
      res = await fetch(f.url, { method: 'HEAD', credentials: 'same-origin', cache: 'no-store',
        headers: { 'Tus-Resumable': '1.0.0' } });
    } catch (e) {
      throw uploadError(0, LOST);
    }
    if (!res.ok) {
      const msg = res.status === 404 ? 'The server no longer has this upload: try again to send the file anew.'
        : fallbackMessages[res.status] || 'Something went wrong (' + res.status + '). Try again later.';
      throw uploadError(res.status, msg, Number(res.headers.get('Retry-After')) || 0);
    }
    const n = offsetOf(res.headers.get('Upload-Offset'));
    if (n < 0) throw uploadError(0, 'The server did not say how much of the file it has.');
    return n;
  }

  // patchChunk sends the chunk from offset; it answers the server's new
  // offset.
  function patchChunk(f, offset) {
    const end = Math.min(offset + CHUNK_SIZE, f.file.size);
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      let stall = 0;
      let stalled = false;
      const watch = () => {
        clearTimeout(stall);
        stall = setTimeout(() => {
          stalled = true;
          xhr.abort();
        }, STALL_MS);
      };
      const fail = (status, message, retryAfter) => {
        clearTimeout(stall);
        reject(uploadError(status, message, retryAfter));
      };
      xhr.open('PATCH', f.url);
      xhr.setRequestHeader('Tus-Resumable', '1.0.0');
      xhr.setRequestHeader('Upload-Offset', String(offset));
      xhr.setRequestHeader('Content-Type', 'application/offset+octet-stream');
      xhr.upload.addEventListener('progress', (ev) => {
        watch();
        f.progress(offset + Math.min(ev.loaded, end - offset));
      });
      // Once the bytes are out, the server stores them before it answers:
      // that wait is no stall.
      xhr.upload.addEventListener('load', () => clearTimeout(stall));
      xhr.addEventListener('load', () => {
        clearTimeout(stall);
        if (xhr.status === 204 || xhr.status === 200) {
          const n = offsetOf(xhr.getResponseHeader('Upload-Offset'));
          if (n > offset) return resolve(n);
          return fail(0, 'The server did not take the bytes sent.');
        }
        return fail(xhr.status, messageOf(xhr.status, xhr.responseText), Number(xhr.getResponseHeader('Retry-After')) || 0);
      });
      xhr.addEventListener('error', () => fail(0, LOST));
      xhr.addEventListener('abort', () => fail(0, stalled ? 'The connection stalled.' : LOST));
      watch();
      xhr.send(f.file.slice(offset, end));
    });
  }

  // sendBytes sends a started upload's bytes from where the server
  // stands, retrying a failed chunk from the offset a HEAD answers.
  async function sendBytes(f) {
    let failures = 0;
    for (;;) {
      try {
        if (f.check) {
          f.offset = await headOffset(f);
          f.check = false;
        }
        f.progress(f.offset);
        if (f.offset >= f.file.size) return;
        f.mark('uploading', 'Sending…');
        f.offset = await patchChunk(f, f.offset);
        failures = 0;
      } catch (e) {
        // Whatever happened, the server says first where it stands.
        f.check = true;
        if (!e.retry || failures >= RETRY_DELAYS.length) throw e;
        const wait = Math.max(RETRY_DELAYS[failures], (e.retryAfter || 0) * 1000);
        failures++;
        f.resumes++;
        f.mark('retrying', interruption(e) + ' Resuming in ' + Math.ceil(wait / 1000) + ' s…');
        await sleep(wait);
        f.mark('retrying', 'Resuming…');
      }
    }
  }

  // interruption says why a chunk did not go, for a person.
  function interruption(e) {
    return e.status === 0 ? e.message : 'The server could not take the file just now.';
  }

  function showUpload(session) {
    const share = session.share;
    const root = session.root || {};
    const section = el('section', { class: 'share upload-share' }, shareHeader(share));
    if (!root.canUpload) {
      section.append(el('p', { class: 'notice', id: 'upload-note' },
        'This share takes no files. Ask the person who sent the link for another way to send them.'));
      show([section], share.title);
      return;
    }
    // A folder takes files; an item (a share with versions) one file: its
    // original, when it is a placeholder waiting for one.
    const several = root.itemType === 'folder';
    const input = el('input', { type: 'file', id: 'upload-input', class: 'file-input visually-hidden', name: 'files',
      multiple: several, 'aria-describedby': 'upload-help' });
    const zone = el('div', { class: 'dropzone', id: 'dropzone' },
      el('p', { class: 'drop-hint', 'aria-hidden': 'true' }, several ? 'Drag files here' : 'Drag the file here'),
      el('p', { class: 'drop-or', 'aria-hidden': 'true' }, 'or'),
      input,
      el('label', { for: 'upload-input', class: 'choose', id: 'upload-choose' }, several ? 'Choose files' : 'Choose a file'));
    const error = el('p', { class: 'error', id: 'upload-error', role: 'alert', hidden: true });
    const list = el('ul', { class: 'upload-list', id: 'upload-list', 'aria-label': 'Your files', hidden: true });
    const help = several
      ? 'Your files go to the person who shared this link. They are sent one after another: keep this page open until each says “Uploaded”.'
      : 'Your file becomes “' + (root.title || share.title) + '”. Keep this page open until it says “Uploaded”.';
    section.append(el('section', { class: 'card uploader', 'aria-labelledby': 'upload-title' },
      el('h2', { id: 'upload-title' }, several ? 'Send files' : 'Send the file'),
      el('p', { class: 'help', id: 'upload-help' }, help),
      zone, error, list));

    const files = [];
    let busy = false;
    let count = 0;

    function entry(file) {
      const n = ++count;
      const id = 'upload-' + n;
      const name = el('span', { class: 'file-name', id: id + '-name' }, file.name || 'Untitled');
      const bar = el('progress', { id: id + '-progress', max: 100, value: 0, 'aria-label': 'Upload of ' + (file.name || 'the file') });
      const pct = el('span', { class: 'percent', id: id + '-percent', 'aria-hidden': 'true' }, '0%');
      const status = el('p', { class: 'file-status', id: id + '-status', tabIndex: -1 });
      const retry = el('button', { type: 'button', class: 'link retry', hidden: true }, 'Try again');
      const li = el('li', { class: 'upload-file', id, 'data-state': 'queued' },
        el('div', { class: 'file-head' }, name, el('span', { class: 'file-size' }, formatBytes(file.size))),
        el('div', { class: 'file-bar' }, bar, pct), el('div', { class: 'file-foot' }, status, retry));
      const f = {
        file, li, upload: null, url: '', offset: 0, check: false, resumes: 0,
        mark(state, text) {
          li.dataset.state = state;
          status.textContent = text;
          retry.hidden = state !== 'error' || !file.size;
        },
        progress(sent, done) {
          const p = done ? 100 : Math.min(99, Math.floor((100 * sent) / Math.max(1, file.size)));
          bar.value = p;
          pct.textContent = p + '%';
        },
      };
      retry.addEventListener('click', () => {
        f.mark('queued', 'Waiting to be sent');
        status.focus();
        pump();
      });
      f.mark('queued', 'Waiting to be sent');
      return f;
    }

    async function sendFile(f) {
      f.mark('uploading', f.upload ? 'Resuming…' : 'Starting…');
      try {
        if (!f.upload) {
          const body = { fileName: f.file.name, size: f.file.size };
          if (f.file.type) body.fileType = f.file.type;
          f.upload = await api('POST', 'api/uploads', body);
          f.url = uploadURL(f.upload);
          f.offset = 0;
          f.check = false;
        }
        await sendBytes(f);
        f.progress(f.file.size, true);
        f.mark('done', 'Uploaded');
        announce((f.file.name || 'The file') + ' was uploaded.');
        return true;
      } catch (e) {
        if (e.status === 410) {
          showProblem(e);
          return false;
        }
        // An upload the server no longer has: a try again starts anew.
        if (e.status === 404) f.upload = null;
        let msg = e.message;
        if (e.status === 401) msg = 'Your visit ended: reload the page and open the share again to send this file.';
        else if (e.retry) msg = interruption(e) + ' Try again to resume where it stopped.';
        f.mark('error', msg);
        announce((f.file.name || 'The file') + ' was not uploaded. ' + msg);
        return true;
      }
    }

    // pump sends the waiting files, one after another.
    async function pump() {
      if (busy) return;
      busy = uploading = true;
      try {
        for (let f; (f = files.find((x) => x.li.dataset.state === 'queued'));) {
          if (!section.isConnected || !(await sendFile(f))) return;
        }
      } finally {
        busy = uploading = false;
      }
      const done = files.filter((x) => x.li.dataset.state === 'done').length;
      if (files.length > 1 && done === files.length) announce('All ' + done + ' files were uploaded.');
    }

    function add(chosen, skipped) {
      error.hidden = true;
      if (!several && chosen.length > 1) {
        error.textContent = 'Send one file: it becomes the shared item.';
        error.hidden = false;
        return;
      }
      if (skipped) {
        error.textContent = 'Folders cannot be sent: choose the files in them.';
        error.hidden = false;
      }
      if (!chosen.length) return;
      for (const file of chosen) {
        const f = entry(file);
        files.push(f);
        list.append(f.li);
        if (!file.size) f.mark('error', 'This file is empty: there is nothing to send.');
      }
      list.hidden = false;
      announce(chosen.length === 1 ? (chosen[0].name || 'A file') + ' was added.' : chosen.length + ' files were added: they are sent one after another.');
      pump();
    }

    input.addEventListener('change', () => {
      add(Array.from(input.files || []), false);
      // The same file may be chosen again.
      input.value = '';
    });
    const hasFiles = (ev) => !!ev.dataTransfer && Array.from(ev.dataTransfer.types || []).includes('Files');
    const over = (ev) => {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      ev.dataTransfer.dropEffect = 'copy';
      zone.classList.add('is-over');
    };
    zone.addEventListener('dragenter', over);
    zone.addEventListener('dragover', over);
    zone.addEventListener('dragleave', (ev) => {
      if (!zone.contains(ev.relatedTarget)) zone.classList.remove('is-over');
    });
    zone.addEventListener('drop', (ev) => {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      zone.classList.remove('is-over');
      // A folder dropped is a File too (that cannot be read): left out.
      const items = Array.from(ev.dataTransfer.items || []);
      const chosen = [];
      let skipped = false;
      Array.from(ev.dataTransfer.files || []).forEach((file, i) => {
        const it = items[i];
        const fsEntry = it && typeof it.webkitGetAsEntry === 'function' ? it.webkitGetAsEntry() : null;
        if (fsEntry && fsEntry.isDirectory) skipped = true;
        else chosen.push(file);
      });
      add(chosen, skipped);
    });
    if (!dropGuard) {
      dropGuard = true;
      // A file dropped beside the zone must not replace the page (and end
      // the uploads).
      window.addEventListener('dragover', (ev) => {
        if (hasFiles(ev) && !ev.defaultPrevented) {
          ev.preventDefault();
          ev.dataTransfer.dropEffect = 'none';
        }
      });
      window.addEventListener('drop', (ev) => {
        if (hasFiles(ev)) ev.preventDefault();
      });
      window.addEventListener('beforeunload', (ev) => {
        if (!uploading) return;
        ev.preventDefault();
        ev.returnValue = '';
      });
    }
    show([section], share.title);
  }

  start();
})();
