// Loupe's playground: GraphiQL (the UMD build, on the globals React,
// ReactDOM and GraphiQL that the scripts before this one define) with the
// API key handled by the page. The key comes from a form or once from the
// URL fragment (#key=…, never sent to the server), stays in localStorage and
// goes out as Authorization: Bearer on every request. A 401 forgets it and
// asks again.
(function () {
  'use strict';

  var STORAGE_KEY = 'loupe.playground.apiKey';
  // Relative to /playground, so that the page works behind a path prefix.
  var GRAPHQL_URL = 'graphql';
  // GraphiQL 4's doc explorer plugin, by title. Its visiblePlugin prop does
  // not open the pane on the first render (the pane's hidden state is taken
  // before the prop reaches the plugin store), so the page presses the
  // sidebar's button once instead (openDocs).
  var SHOW_DOCS = 'Show Documentation Explorer';

  var DEFAULT_QUERY = [
    '# The newest items of your tenant, with their folders.',
    '# Run: Ctrl-Enter or the run button.',
    '# Docs (left): every type and field.',
    'query RecentItems {',
    '  viewer {',
    '    email',
    '    isAdmin',
    '  }',
    '  items(first: 10, orderBy: CREATED_DESC) {',
    '    totalCount',
    '    pageInfo {',
    '      hasNextPage',
    '      endCursor',
    '    }',
    '    nodes {',
    '      id',
    '      title',
    '      itemType',
    '      createdOn',
    '      folders {',
    '        name',
    '      }',
    '    }',
    '  }',
    '}',
    ''
  ].join('\n');

  var el = {
    status: document.getElementById('key-status'),
    change: document.getElementById('change-key'),
    forget: document.getElementById('forget-key'),
    panel: document.getElementById('key-panel'),
    form: document.getElementById('key-form'),
    input: document.getElementById('key-input'),
    message: document.getElementById('key-message'),
    cancel: document.getElementById('key-cancel'),
    graphiql: document.getElementById('graphiql')
  };

  // Storage can be refused (privacy modes): the key then lasts the page.
  var memoryKey = '';
  function storedKey() {
    try { return localStorage.getItem(STORAGE_KEY) || ''; } catch (e) { return memoryKey; }
  }
  function storeKey(key) {
    memoryKey = key;
    try {
      if (key) localStorage.setItem(STORAGE_KEY, key); else localStorage.removeItem(STORAGE_KEY);
    } catch (e) { /* kept in memoryKey */ }
  }

  // keyFromFragment takes #key=… out of the address (and so out of the
  // history and of any bookmark) before anything else runs.
  function keyFromFragment() {
    if (!location.hash) return '';
    var params = new URLSearchParams(location.hash.slice(1));
    var key = (params.get('key') || '').trim();
    if (!key) return '';
    params.delete('key');
    var rest = params.toString();
    history.replaceState(history.state, '', location.pathname + location.search + (rest ? '#' + rest : ''));
    return key;
  }

  // shown is the key as the bar displays it: its id, not its secret.
  function shown(key) {
    var parts = key.split('.');
    return parts.length === 3 ? parts[0] + '.' + parts[1] + '.…' : key.slice(0, 6) + '…';
  }

  var currentKey = '';
  var fetcher = null;
  var root = ReactDOM.createRoot(el.graphiql);

  // operationOf is the kind of the operation params run: the one named, or
  // the document's only one ("query" for the shorthand `{ … }`, and when
  // it cannot tell).
  function operationOf(params) {
    var src = (params.query || '').replace(/#[^\n\r]*/g, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');
    var re = /(^|[\s}])(query|mutation|subscription)\b\s*([_A-Za-z][_0-9A-Za-z]*)?/g;
    var m, all = [], named = [];
    while ((m = re.exec(src))) {
      all.push(m[2]);
      if (m[3] === params.operationName) named.push(m[2]);
    }
    if (named.length === 1) return named[0];
    // A name the document no longer has (GraphiQL keeps the last one
    // when the editor's text is replaced): its only operation is meant.
    if (all.length === 1) {
      delete params.operationName;
      return all[0];
    }
    return 'query';
  }

  // subscribe runs a subscription over Server-Sent Events (the
  // graphql-sse protocol, distinct connections): each `next` event is one
  // result for GraphiQL; `complete` or the end of the stream ends it.
  async function* subscribe(params, headers) {
    var res = await fetch(GRAPHQL_URL, {
      method: 'POST', body: JSON.stringify(params), credentials: 'omit',
      headers: Object.assign({}, headers, { Accept: 'text/event-stream' })
    });
    if (!res.ok || !res.body) {
      yield { errors: [{ message: 'HTTP ' + res.status + ': ' + (await res.text()) }] };
      return;
    }
    var reader = res.body.getReader();
    var decoder = new TextDecoder();
    var buf = '';
    try {
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) return;
        buf += decoder.decode(chunk.value, { stream: true });
        var end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          var block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          var event = 'message', data = '';
          block.split('\n').forEach(function (line) {
            if (line.indexOf('event:') === 0) event = line.slice(6).trim();
            else if (line.indexOf('data:') === 0) data += line.slice(5).trim();
          });
          if (event === 'complete') return;
          if (event === 'next' && data) yield JSON.parse(data);
        }
      }
    } finally {
      reader.cancel().catch(function () {});
    }
  }

  // makeFetcher sends GraphiQL's requests with key. Headers typed into
  // GraphiQL's headers editor come on top (to try another credential).
  // Subscriptions stream their results as they come (subscribe).
  function makeFetcher(key) {
    return async function (params, opts) {
      var headers = Object.assign(
        { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: 'Bearer ' + key },
        (opts && opts.headers) || {});
      if (operationOf(params) === 'subscription') {
        return subscribe(params, headers);
      }
      var res = await fetch(GRAPHQL_URL, {
        method: 'POST', headers: headers, body: JSON.stringify(params), credentials: 'omit'
      });
      if (res.status === 401 && key === currentKey) {
        refused();
      }
      var text = await res.text();
      try {
        return JSON.parse(text);
      } catch (e) {
        return { errors: [{ message: 'HTTP ' + res.status + ': ' + text }] };
      }
    };
  }

  function render() {
    if (!currentKey) {
      root.render(null);
      docsOpened = false;
      return;
    }
    root.render(React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: DEFAULT_QUERY,
      defaultEditorToolsVisibility: false
    }));
    if (!docsOpened) openDocs();
  }

  // openDocs opens the documentation explorer once GraphiQL has drawn its
  // sidebar: once per GraphiQL shown, so that a user who closes it keeps it
  // closed.
  var docsOpened = false;
  function openDocs() {
    docsOpened = true;
    var selector = 'button[aria-label="' + SHOW_DOCS + '"]';
    var press = function () {
      var button = el.graphiql.querySelector(selector);
      if (button) button.click();
      return !!button;
    };
    if (press()) return;
    var seen = new MutationObserver(function () { if (press()) seen.disconnect(); });
    seen.observe(el.graphiql, { childList: true, subtree: true });
    setTimeout(function () { seen.disconnect(); }, 10000);
  }

  function useKey(key) {
    currentKey = key;
    fetcher = key ? makeFetcher(key) : null;
    storeKey(key);
    el.status.textContent = key ? 'key ' + shown(key) : 'no key';
    el.change.hidden = !key;
    el.forget.hidden = !key;
    render();
  }

  // askKey shows the form, with why when it is asked again.
  function askKey(message) {
    el.message.textContent = message || '';
    el.message.hidden = !message;
    el.cancel.hidden = !currentKey;
    el.panel.hidden = false;
    el.input.value = '';
    el.input.focus();
  }

  // refused forgets a key the server answered 401 to; GraphiQL stays, with
  // the server's answer in its result pane.
  function refused() {
    var was = currentKey;
    currentKey = '';
    fetcher = null;
    storeKey('');
    el.status.textContent = 'key refused';
    el.change.hidden = true;
    el.forget.hidden = true;
    askKey('The server refused the key ' + shown(was) + ' (401 Unauthorized): it is unknown, revoked or mistyped. Enter another key.');
  }

  el.form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var key = el.input.value.trim();
    if (!key) return;
    el.input.value = '';
    el.panel.hidden = true;
    el.message.hidden = true;
    useKey(key);
  });
  el.cancel.addEventListener('click', function () { el.panel.hidden = true; });
  el.change.addEventListener('click', function () { askKey(''); });
  el.forget.addEventListener('click', function () {
    useKey('');
    askKey('The key is forgotten: this browser no longer holds it.');
  });

  var key = keyFromFragment() || storedKey();
  useKey(key);
  if (!key) askKey('');
})();
