package resolvers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/mdf"
	"github.com/loupe-mam/loupe/store"
)

// batchWait is how long a loader collects keys nobody hinted before it
// queries. gqlgen resolves sibling fields concurrently, so a short window
// gathers most of them; hints (below) make list levels exact.
const batchWait = 500 * time.Microsecond

// Loaders batch the nested fields of one request. They are built per request
// because they cache what they load for the request's principal.
type Loaders struct {
	Item *Loader[*store.Item]
	// ItemLean answers lean items (store.ItemsByIDsLean) for a field that
	// asks only lean fields of them (resolvers/lean.go).
	ItemLean            *Loader[*store.Item]
	Folder              *Loader[*store.Folder]
	FoldersOfItem       *Loader[[]*store.Folder]
	AttachmentsOfItem   *Loader[[]*store.Attachment]
	TimedMetadataOfItem *Loader[[]*store.TimedMetadata]
	VersionsOfItem      *Loader[[]*store.ItemVersion]
	AncestryOfItem      *Loader[[][]*store.PathEntry]
	// RelationsOfItem answers both directions; its values hint the related
	// items to Item, so that Relation.item of a whole page is one query.
	RelationsOfItem *Loader[[]*store.Relation]
	// CommentsOfItem answers the first page of an item's comments, keyed
	// by commentsKey (item id, page size, order, whole or bare). It returns one comment more
	// than the page when more follow.
	CommentsOfItem *Loader[[]*store.Comment]
	// ThumbnailsOfItem answers a page of an item's thumbnails, keyed by
	// argsKey(index, size, item id); TranscriptOfItem an item's transcript
	// in a language, keyed by argsKey(language, item id). Their keys carry
	// arguments only their resolvers know: the resolvers hint them
	// (HintThumbnails, HintTranscripts) before they load.
	ThumbnailsOfItem *Loader[[]*store.Thumbnail]
	TranscriptOfItem *Loader[*store.Transcript]
	// Access answers what the principal may do with items (non-admins'
	// relation lists); the relations of a page hint it.
	Access *Loader[store.ItemAccess]
	// Mdf answers forms by id (ItemMetadata.form, readable form data);
	// listed items hint their forms.
	Mdf *Loader[*mdf.Mdf]

	// hintedMu guards hintedItems, itemsByID and argHints: the items hinted
	// so far (with their records when the hint had them), and per argument
	// key (see hintArgs) how many of them have been hinted with it.
	hintedMu    sync.Mutex
	hintedItems []string
	itemsByID   map[string]*store.Item
	argHints    map[string]int
}

// NewLoaders builds a request's loaders. Each level hints the next: the
// folders of a page of items name the parents that Folder.parent will ask
// for, and those parents name theirs.
func NewLoaders(st *store.Store) *Loaders {
	l := &Loaders{}
	// Items loaded by id (related items, ...) hint their own nested fields.
	l.Item = newLoader(byKey(st.ItemsByIDs), func(it *store.Item) { l.hintItem(it) })
	l.ItemLean = newLoader(byKey(st.ItemsByIDsLean), func(it *store.Item) { l.hintItem(it) })
	l.Folder = newLoader(byKey(st.FoldersByIDs), func(f *store.Folder) { l.HintFolders(f) })
	l.FoldersOfItem = newLoader(listByKey(st.FoldersOfItems), func(fs []*store.Folder) { l.HintFolders(fs...) })
	l.AttachmentsOfItem = newLoader(listByKey(ofTenant(st.AttachmentsOfItems)))
	l.TimedMetadataOfItem = newLoader(listByKey(ofTenant(st.TimedMetadataOfItems)))
	l.VersionsOfItem = newLoader(listByKey(ofTenant(st.VersionsOfItems)))
	l.AncestryOfItem = newLoader(listByKey(st.AncestryOfItems))
	l.Access = newLoader(byKey(st.AccessOf))
	l.RelationsOfItem = newLoader(listByKey(ofTenant(st.RelationsOfItems)), func(rs []*store.Relation) {
		for _, r := range rs {
			l.Item.Hint(r.RelatedItemID)
			l.ItemLean.Hint(r.RelatedItemID)
			l.Access.Hint(r.RelatedItemID)
		}
	})
	l.CommentsOfItem = newLoader(firstComments(st))
	l.ThumbnailsOfItem = newLoader(thumbnailPages(st))
	l.TranscriptOfItem = newLoader(transcripts(st))
	l.Mdf = newLoader(byKey(st.MdfsByIDs))
	return l
}

// HintFolders tells the folder-keyed loaders which folders a list (or a
// level) just returned: their parents and their ancestry paths.
func (l *Loaders) HintFolders(fs ...*store.Folder) {
	ids := make([]string, 0, len(fs))
	for _, f := range fs {
		ids = append(ids, f.ID)
		if f.ParentID != nil {
			l.Folder.Hint(*f.ParentID)
		}
	}
	l.AncestryOfItem.Hint(ids...)
}

// HintItems tells the item-keyed loaders which items a list just returned,
// so that whichever nested field its elements ask for, one query answers
// the whole list.
func (l *Loaders) HintItems(items []*store.Item) {
	ids := make([]string, len(items))
	forms := make([]string, len(items))
	l.hintedMu.Lock()
	if l.itemsByID == nil {
		l.itemsByID = make(map[string]*store.Item, len(items))
	}
	var folders []string
	for i, it := range items {
		ids[i], forms[i] = it.ID, it.MetadataFormID
		if !it.Lean {
			l.itemsByID[it.ID] = it
		}
		folders = append(folders, it.FolderParentIDs...)
	}
	l.hintedMu.Unlock()
	l.hintItemIDs(ids...)
	l.Folder.Hint(folders...)
	l.Mdf.Hint(forms...)
}

// hintItem hints what an item loaded by id (a related item, a folder
// entry's item) may be asked for: its nested fields and its folders.
func (l *Loaders) hintItem(it *store.Item) {
	l.hintItemIDs(it.ID)
	l.Folder.Hint(it.FolderParentIDs...)
}

func (l *Loaders) hintItemIDs(ids ...string) {
	for _, h := range []interface{ Hint(...string) }{
		l.FoldersOfItem, l.AttachmentsOfItem, l.TimedMetadataOfItem, l.VersionsOfItem, l.AncestryOfItem,
		l.RelationsOfItem,
	} {
		h.Hint(ids...)
	}
	l.hintedMu.Lock()
	l.hintedItems = append(l.hintedItems, ids...)
	l.hintedMu.Unlock()
}

// HintComments hints CommentsOfItem with the first pages pg of every item
// hinted so far and not yet hinted so. The comments resolver calls it
// before it loads, so the first element of a list fetches the page of every
// element.
func (l *Loaders) HintComments(pg commentPage) {
	l.hintArgs(l.CommentsOfItem, commentsKey("", pg), func(id string, _ *store.Item) (string, bool) {
		return commentsKey(id, pg), true
	})
}

// HintThumbnails hints ThumbnailsOfItem with the page (index, size) of every
// hinted item, as HintComments does.
func (l *Loaders) HintThumbnails(index, size int) {
	args := argsKey(strconv.Itoa(index), strconv.Itoa(size))
	l.hintArgs(l.ThumbnailsOfItem, "thumbnails/"+args, func(id string, _ *store.Item) (string, bool) {
		return argsKey(args, id), true
	})
}

// HintTranscripts hints TranscriptOfItem with the transcript in lang (""
// for each item's own language) of every hinted item that has one.
func (l *Loaders) HintTranscripts(lang string) {
	l.hintArgs(l.TranscriptOfItem, "transcripts/"+lang, func(id string, it *store.Item) (string, bool) {
		switch {
		case it == nil:
			return "", false // not known: its own load asks
		case it.TranscriptLastUpdated == nil:
			return "", false // never loaded (itemTranscript)
		case lang != "":
			return argsKey(lang, id), true
		default:
			return argsKey(it.LanguageCode, id), true
		}
	})
}

// hintArgs hints loader h with key(item) for every item hinted so far and
// not yet hinted under hint (a loader and the arguments of its keys, which
// only the field's resolver knows). The hint is given under the lock: a
// sibling resolver that finds nothing left to hint must not load before
// these keys are hinted, or its key would be fetched on its own.
func (l *Loaders) hintArgs(h interface{ Hint(...string) }, hint string, key func(id string, it *store.Item) (string, bool)) {
	l.hintedMu.Lock()
	defer l.hintedMu.Unlock()
	if l.argHints == nil {
		l.argHints = map[string]int{}
	}
	todo := l.hintedItems[l.argHints[hint]:]
	l.argHints[hint] = len(l.hintedItems)
	keys := make([]string, 0, len(todo))
	for _, id := range todo {
		if k, ok := key(id, l.itemsByID[id]); ok {
			keys = append(keys, k)
		}
	}
	h.Hint(keys...)
}

// commentPage is what a first page of an item's comments asks: its size,
// its order, and whether the comments are read whole or bare (when the
// selection asks only for bareCommentFields).
type commentPage struct {
	first         int
	newest, whole bool
}

// commentsKey is the CommentsOfItem key of an item's first page:
// "<first>[d][w]/<item>", d newest first, w whole comments.
func commentsKey(itemID string, pg commentPage) string {
	k := strconv.Itoa(pg.first)
	if pg.newest {
		k += "d"
	}
	if pg.whole {
		k += "w"
	}
	return k + "/" + itemID
}

func parseCommentsKey(k string) (itemID string, pg commentPage) {
	size, itemID, _ := strings.Cut(k, "/")
	size, pg.whole = strings.CutSuffix(size, "w")
	size, pg.newest = strings.CutSuffix(size, "d")
	pg.first, _ = strconv.Atoi(size)
	return itemID, pg
}

// firstComments answers CommentsOfItem keys in key order with one query
// per kind of page (order, whole or bare) however many items and page sizes
// they name: it fetches the largest page (plus one, to tell whether more
// follow) and cuts each key's page from it.
func firstComments(st *store.Store) dataloader.BatchFunc[string, []*store.Comment] {
	return func(ctx context.Context, keys []string) []*dataloader.Result[[]*store.Comment] {
		type batch struct {
			ids     []string
			seen    map[string]bool
			largest int
			found   map[string][]*store.Comment
		}
		var batches [2][2]batch // by [newest first][whole]
		type parsed struct {
			itemID string
			pg     commentPage
		}
		ks := make([]parsed, len(keys))
		for i, k := range keys {
			id, pg := parseCommentsKey(k)
			ks[i] = parsed{id, pg}
			b := &batches[b2i(pg.newest)][b2i(pg.whole)]
			b.largest = max(b.largest, pg.first)
			if b.seen == nil {
				b.seen = map[string]bool{}
			}
			if !b.seen[id] {
				b.seen[id] = true
				b.ids = append(b.ids, id)
			}
		}
		p, err := auth.Require(ctx)
		for newest := range batches {
			for whole := range batches[newest] {
				if b := &batches[newest][whole]; err == nil && len(b.ids) > 0 {
					b.found, err = st.FirstCommentsOfItems(ctx, p.TenantID, b.ids, b.largest+1, newest == 1, whole == 1)
				}
			}
		}
		out := make([]*dataloader.Result[[]*store.Comment], len(keys))
		for i, k := range ks {
			page := batches[b2i(k.pg.newest)][b2i(k.pg.whole)].found[k.itemID]
			if len(page) > k.pg.first+1 {
				page = page[:k.pg.first+1]
			}
			if page == nil {
				page = []*store.Comment{}
			}
			out[i] = &dataloader.Result[[]*store.Comment]{Data: page, Error: err}
		}
		return out
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// argsKey joins a loader key from field arguments and an item id.
func argsKey(parts ...string) string { return strings.Join(parts, "/") }

// thumbnailPages answers ThumbnailsOfItem keys with one query per distinct
// (index, size), which a page of items shares.
func thumbnailPages(st *store.Store) dataloader.BatchFunc[string, []*store.Thumbnail] {
	return func(ctx context.Context, keys []string) []*dataloader.Result[[]*store.Thumbnail] {
		type args struct{ index, size int }
		out := make([]*dataloader.Result[[]*store.Thumbnail], len(keys))
		groups := map[args][]string{}
		keyArgs := make([]args, len(keys))
		keyIDs := make([]string, len(keys))
		for i, k := range keys {
			parts := strings.SplitN(k, "/", 3)
			a := args{}
			a.index, _ = strconv.Atoi(parts[0])
			a.size, _ = strconv.Atoi(parts[1])
			keyArgs[i], keyIDs[i] = a, parts[2]
			groups[a] = append(groups[a], parts[2])
		}
		p, err := auth.Require(ctx)
		pages := map[args]map[string][]*store.Thumbnail{}
		for a, ids := range groups {
			if err != nil {
				break
			}
			pages[a], err = st.ThumbnailPagesOfItems(ctx, p.TenantID, ids, a.index, a.size)
		}
		for i := range keys {
			page := pages[keyArgs[i]][keyIDs[i]]
			if page == nil {
				page = []*store.Thumbnail{}
			}
			out[i] = &dataloader.Result[[]*store.Thumbnail]{Data: page, Error: err}
		}
		return out
	}
}

// transcripts answers TranscriptOfItem keys with one query; nil where an
// item has no transcript in the language.
func transcripts(st *store.Store) dataloader.BatchFunc[string, *store.Transcript] {
	return func(ctx context.Context, keys []string) []*dataloader.Result[*store.Transcript] {
		out := make([]*dataloader.Result[*store.Transcript], len(keys))
		tk := make([]store.TranscriptKey, len(keys))
		for i, k := range keys {
			lang, id, _ := strings.Cut(k, "/")
			tk[i] = store.TranscriptKey{ItemID: id, LanguageCode: lang}
		}
		p, err := auth.Require(ctx)
		var found map[store.TranscriptKey]*store.Transcript
		if err == nil {
			found, err = st.TranscriptsByKeys(ctx, p.TenantID, tk)
		}
		for i := range keys {
			out[i] = &dataloader.Result[*store.Transcript]{Data: found[tk[i]], Error: err}
		}
		return out
	}
}

// Loader is a dataloader with hints. A resolver that returns a list hints
// the keys its elements will ask for, and the first Load fetches all hinted
// keys in one query; the other elements find theirs loaded. Batching so
// depends on no time window (a busy machine's goroutines reach a loader over
// more than any window), and lets the elements of a list be marshalled one
// after the other (graph/overrides.go). Keys nobody hinted are batched by the
// dataloader's time window as usual.
type Loader[V any] struct {
	// dl batches loads nobody hinted by a time window. It and fetched are
	// made on first use: a request builds every loader and uses few (a
	// get-item, one or two), and making them all was 6 % of its CPU.
	dlOnce  sync.Once
	dl      *dataloader.Loader[string, V]
	fetch   dataloader.BatchFunc[string, V]
	onValue []func(V)

	// mu serialises hinted fetches and guards fetched; hintMu guards
	// hinted alone, because a fetch's values hint (possibly this loader)
	// while mu is held.
	mu      sync.Mutex
	fetched map[string]*dataloader.Result[V]
	hintMu  sync.Mutex
	hinted  []string
}

func newLoader[V any](fetch dataloader.BatchFunc[string, V], onValue ...func(V)) *Loader[V] {
	return &Loader[V]{fetch: fetch, onValue: onValue}
}

// batch runs the fetch and lets each value hint the next level.
func (l *Loader[V]) batch(ctx context.Context, keys []string) []*dataloader.Result[V] {
	out := l.fetch(ctx, keys)
	for _, r := range out {
		if r.Error == nil {
			for _, f := range l.onValue {
				f(r.Data)
			}
		}
	}
	return out
}

// Hint announces keys that are about to be loaded.
func (l *Loader[V]) Hint(keys ...string) {
	l.hintMu.Lock()
	l.hinted = append(l.hinted, keys...)
	l.hintMu.Unlock()
}

// Load returns the value for key, fetching every pending hint with it.
func (l *Loader[V]) Load(ctx context.Context, key string) (V, error) {
	l.mu.Lock()
	if r, ok := l.fetched[key]; ok {
		l.mu.Unlock()
		return r.Data, r.Error
	}
	if hinted := l.takeHints(key); hinted != nil {
		results := l.batch(ctx, hinted)
		if l.fetched == nil {
			l.fetched = make(map[string]*dataloader.Result[V], len(hinted))
		}
		for i, k := range hinted {
			l.fetched[k] = results[i]
		}
		r := l.fetched[key]
		l.mu.Unlock()
		return r.Data, r.Error
	}
	l.mu.Unlock()
	l.dlOnce.Do(func() {
		l.dl = dataloader.NewBatchedLoader(l.batch, dataloader.WithWait[string, V](batchWait))
	})
	return l.dl.Load(ctx, key)()
}

// takeHints returns the pending hints not fetched yet, with key among them,
// or nil when key was not hinted. Called with mu held.
func (l *Loader[V]) takeHints(key string) []string {
	l.hintMu.Lock()
	defer l.hintMu.Unlock()
	found := false
	seen := make(map[string]bool, len(l.hinted))
	keys := make([]string, 0, len(l.hinted))
	for _, k := range l.hinted {
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, done := l.fetched[k]; !done {
			keys = append(keys, k)
		}
		found = found || k == key
	}
	if !found {
		return nil
	}
	l.hinted = nil
	return keys
}

// fetchFunc is a store read of many keys for a principal; what the
// principal may not see is left out.
type fetchFunc[V any] func(ctx context.Context, p *loupe.Principal, ids []string) (map[string]V, error)

// ofTenant adapts a store read scoped by tenant alone: nested data of an
// item the principal already sees.
func ofTenant[V any](fetch func(ctx context.Context, tenantID string, ids []string) (map[string]V, error)) fetchFunc[V] {
	return func(ctx context.Context, p *loupe.Principal, ids []string) (map[string]V, error) {
		return fetch(ctx, p.TenantID, ids)
	}
}

// byKey adapts a store fetch keyed by id to a batch function that answers in
// key order, with ENOTFOUND for each key the store did not return.
func byKey[V any](fetch fetchFunc[V]) dataloader.BatchFunc[string, V] {
	return func(ctx context.Context, keys []string) []*dataloader.Result[V] {
		out := make([]*dataloader.Result[V], len(keys))
		p, err := auth.Require(ctx)
		var found map[string]V
		if err == nil {
			found, err = fetch(ctx, p, keys)
		}
		for i, k := range keys {
			switch v, ok := found[k]; {
			case err != nil:
				out[i] = &dataloader.Result[V]{Error: err}
			case !ok:
				out[i] = &dataloader.Result[V]{Error: loupe.NotFound()}
			default:
				out[i] = &dataloader.Result[V]{Data: v}
			}
		}
		return out
	}
}

// listByKey adapts a store fetch of lists keyed by owner id; an owner with
// nothing gets an empty list.
func listByKey[V any](fetch fetchFunc[[]V]) dataloader.BatchFunc[string, []V] {
	return func(ctx context.Context, keys []string) []*dataloader.Result[[]V] {
		out := make([]*dataloader.Result[[]V], len(keys))
		p, err := auth.Require(ctx)
		var found map[string][]V
		if err == nil {
			found, err = fetch(ctx, p, keys)
		}
		for i, k := range keys {
			v := found[k]
			if v == nil {
				v = []V{}
			}
			out[i] = &dataloader.Result[[]V]{Data: v, Error: err}
		}
		return out
	}
}

type loadersKey struct{}

// WithLoaders returns ctx carrying fresh loaders.
func WithLoaders(ctx context.Context, st *store.Store) context.Context {
	return context.WithValue(ctx, loadersKey{}, NewLoaders(st))
}

// Middleware gives every request its own loaders.
func Middleware(st *store.Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(WithLoaders(r.Context(), st)))
		})
	}
}

// loaders returns the request's loaders. Every request gets them from
// Middleware; a context without them is a wiring error.
func (r *Resolver) loaders(ctx context.Context) *Loaders {
	l, ok := ctx.Value(loadersKey{}).(*Loaders)
	if !ok {
		panic("resolvers: no loaders in the request context (resolvers.Middleware missing)")
	}
	return l
}
