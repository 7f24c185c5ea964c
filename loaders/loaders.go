package loaders

import (
	"context"
	"net/http"
	"sync"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/mdf"
	"github.com/loupe-mam/loupe/store"
)

// Loaders batch the nested fields of one request. They are built per request
// because they cache what they load for the request's principal.
type Loaders struct {
	Item *Loader[string, *store.Item]
	// ItemLean answers lean items (store.ItemsByIDsLean) for a field that
	// asks only lean fields of them (resolvers/lean.go).
	ItemLean *Loader[string, *store.Item]
	Folder   *Loader[string, *store.Folder]
	// The loaders keyed by item: a miss fetches the same for every item the
	// request holds.
	FoldersOfItem       *Loader[string, []*store.Folder]
	AttachmentsOfItem   *Loader[string, []*store.Attachment]
	TimedMetadataOfItem *Loader[string, []*store.TimedMetadata]
	VersionsOfItem      *Loader[string, []*store.ItemVersion]
	// AncestryOfItem answers the paths of items and of folders (by id).
	AncestryOfItem *Loader[string, [][]*store.PathEntry]
	// RelationsOfItem answers both directions; its values hint the related
	// items to Item, ItemLean and Access, so that Relation.item of a whole
	// page is one query.
	RelationsOfItem *Loader[string, []*store.Relation]
	// CommentsOfItem answers the first page of an item's comments with one
	// comment more than the page when more follow.
	CommentsOfItem *Loader[CommentsKey, []*store.Comment]
	// ThumbnailsOfItem answers a page of an item's thumbnails with one more
	// when more follow.
	ThumbnailsOfItem *Loader[ThumbnailsKey, []*store.Thumbnail]
	// TranscriptOfItem answers an item's transcript in a language, nil when
	// there is none.
	TranscriptOfItem *Loader[TranscriptKey, *store.Transcript]
	// UploadOfItem answers an item's latest upload (ENOTFOUND: none).
	UploadOfItem *Loader[string, *store.Upload]
	// Access answers what the principal may do with items (non-admins'
	// relation lists).
	Access *Loader[string, store.ItemAccess]
	// Mdf answers forms by id; hinted items hint their forms.
	Mdf *Loader[string, *mdf.Mdf]
	// UsageOfPreset is what uses each preset (docs/render.md).
	UsageOfPreset *Loader[string, []*loupe.PresetUse]
	// ReplicationSource answers sources by id, TransferCountsOfSource
	// their transfers by state (docs/replication.md).
	ReplicationSource      *Loader[string, *loupe.ReplicationSource]
	TransferCountsOfSource *Loader[string, *loupe.TransferCounts]
	// RecordingOfItem answers the items' scheduled recordings (ENOTFOUND:
	// not a recording; docs/live.md).
	RecordingOfItem *Loader[string, *loupe.ScheduledRecording]
	// TranscriptMatchesOfItem answers where a search's words were said in
	// the items' transcripts (search.go).
	TranscriptMatchesOfItem *Loader[TranscriptMatchesKey, []*store.TranscriptMatch]

	// mu guards the request's items: ids in the order they were hinted,
	// records when the hint had whole ones.
	mu        sync.Mutex
	items     []string
	itemsByID map[string]*store.Item
	// searchMu serialises searches for siblings and guards searched: the
	// lists searched, and whether they hinted anything (siblings.go).
	searchMu sync.Mutex
	searched map[*graphql.FieldContext]bool
}

// New builds a request's loaders. Each level hints the next: the folders of
// a page of items name the parents that Folder.parent will ask for, and
// those parents name theirs.
func New(st *store.Store) *Loaders {
	l := &Loaders{}
	// Items loaded by id (related items, ...) join the request's items.
	l.Item = newLoader(l, byID(st.ItemsByIDs), l.hintItem)
	l.ItemLean = newLoader(l, byID(st.ItemsByIDsLean), l.hintItem)
	l.Folder = newLoader(l, byID(st.FoldersByIDs), func(f *store.Folder) { l.HintFolders(f) })
	l.FoldersOfItem = newLoader(l, listByID(st.FoldersOfItems), func(fs []*store.Folder) { l.HintFolders(fs...) }).
		byItem(noArgs, anyItem)
	l.AttachmentsOfItem = newLoader(l, listByID(ofTenant(st.AttachmentsOfItems))).byItem(noArgs, anyItem)
	l.TimedMetadataOfItem = newLoader(l, listByID(ofTenant(st.TimedMetadataOfItems))).byItem(noArgs, anyItem)
	l.VersionsOfItem = newLoader(l, listByID(ofTenant(st.VersionsOfItems))).byItem(noArgs, anyItem)
	l.AncestryOfItem = newLoader(l, listByID(st.AncestryOfItems)).byItem(noArgs, anyItem)
	l.Access = newLoader(l, byID(st.AccessOf))
	l.RelationsOfItem = newLoader(l, listByID(ofTenant(st.RelationsOfItems)), func(rs []*store.Relation) {
		l.hintRelations(rs)
	}).byItem(noArgs, anyItem)
	l.CommentsOfItem = newLoader(l, firstComments(st)).byItem(withoutItem[CommentsKey],
		func(args CommentsKey, id string, _ *store.Item) (CommentsKey, bool) {
			args.ItemID = id
			return args, true
		})
	l.ThumbnailsOfItem = newLoader(l, thumbnailPages(st)).byItem(withoutItem[ThumbnailsKey],
		func(args ThumbnailsKey, id string, _ *store.Item) (ThumbnailsKey, bool) {
			args.ItemID = id
			return args, true
		})
	l.TranscriptOfItem = newLoader(l, transcripts(st)).byItem(withoutItem[TranscriptKey], transcriptOf)
	l.Mdf = newLoader(l, byID(st.MdfsByIDs))
	l.UsageOfPreset = newLoader(l, listByID(ofTenant(st.PresetUsage)))
	l.ReplicationSource = newLoader(l, byID(ofTenant(st.ReplicationSourcesByID)))
	l.TransferCountsOfSource = newLoader(l, byID(ofTenant(st.TransferCounts)))
	l.UploadOfItem = newLoader(l, byID(ofTenant(st.LatestUploads))).byItem(noArgs, uploadOf)
	l.RecordingOfItem = newLoader(l, byID(ofTenant(st.RecordingsOfItems))).byItem(noArgs, anyItem)
	l.TranscriptMatchesOfItem = newLoader(l, transcriptMatches(st)).byItem(withoutItemMatches, transcriptMatchesOf)
	return l
}

// noArgs: a loader keyed by item id alone asks the same of every item.
func noArgs(string) string { return "" }

// transcriptOf is the transcript key of item id with args, for items known
// to have a transcript: an item that never had one answers without a load
// (resolvers/transcripts.go), and an item whose record the request lacks
// asks for its own.
func transcriptOf(args TranscriptKey, id string, it *store.Item) (TranscriptKey, bool) {
	if it == nil || it.TranscriptLastUpdated == nil {
		return TranscriptKey{}, false
	}
	args.ItemID = id
	if args.Own {
		args.LanguageCode = it.LanguageCode
	}
	return args, true
}

// uploadOf is the upload key of item id, for items an upload was asked
// for (their media holds its progress): the others answer without a load.
func uploadOf(_ string, id string, it *store.Item) (string, bool) {
	if it == nil || it.UploadProgressInfo.IsNull() {
		return "", false
	}
	return id, true
}

// HintItems tells the loaders which items a list just returned, so that
// whichever nested field its elements ask for, one query answers the whole
// list. Lists call it before they return; one that forgets costs a search
// of the list when its first element loads (siblings.go).
func (l *Loaders) HintItems(items []*store.Item) {
	var folders, forms []string
	for _, it := range items {
		folders = append(folders, it.FolderParentIDs...)
		forms = append(forms, it.MetadataFormID)
	}
	l.addItems(items)
	l.Folder.Hint(folders...)
	l.Mdf.Hint(forms...)
}

// HintItemIDs tells the loaders of items a list names by id only (folder
// content hits): Item fetches them all, and the item-keyed loaders count
// them in.
func (l *Loaders) HintItemIDs(ids ...string) {
	l.Item.Hint(ids...)
	items := make([]*store.Item, len(ids))
	for i, id := range ids {
		items[i] = &store.Item{ID: id, Lean: true} // no record yet
	}
	l.addItems(items)
}

// hintItem hints what an item loaded by id may be asked for.
func (l *Loaders) hintItem(it *store.Item) {
	l.HintItems([]*store.Item{it})
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

// HintRelations tells the loaders the related items of relations a list
// just returned (Relation.item, and non-admins' access checks).
func (l *Loaders) HintRelations(rs []*store.Relation) { l.hintRelations(rs) }

func (l *Loaders) hintRelations(rs []*store.Relation) {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.RelatedItemID
	}
	l.Item.Hint(ids...)
	l.ItemLean.Hint(ids...)
	l.Access.Hint(ids...)
}

// addItems adds items to the request's items; an item already there only
// gains its record.
func (l *Loaders) addItems(items []*store.Item) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.itemsByID == nil {
		l.itemsByID = make(map[string]*store.Item, len(items))
	}
	for _, it := range items {
		rec, known := l.itemsByID[it.ID]
		if !known {
			l.items = append(l.items, it.ID)
		}
		if !it.Lean || rec == nil {
			l.itemsByID[it.ID] = it
		}
	}
}

// itemsFrom returns the request's items from the from-th on, with their
// records (nil for lean ones: a lean row lacks fields a key may need).
func (l *Loaders) itemsFrom(from int) ([]string, []*store.Item) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if from >= len(l.items) {
		return nil, nil
	}
	ids := append([]string(nil), l.items[from:]...)
	recs := make([]*store.Item, len(ids))
	for i, id := range ids {
		if it := l.itemsByID[id]; it != nil && !it.Lean {
			recs[i] = it
		}
	}
	return ids, recs
}

type contextKey struct{}

// NewContext returns ctx carrying fresh loaders.
func NewContext(ctx context.Context, st *store.Store) context.Context {
	return context.WithValue(ctx, contextKey{}, New(st))
}

// Middleware gives every request its own loaders.
func Middleware(st *store.Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), st)))
		})
	}
}

// For returns the request's loaders. Every request gets them from
// Middleware; a context without them is a wiring error.
func For(ctx context.Context) *Loaders {
	l, ok := ctx.Value(contextKey{}).(*Loaders)
	if !ok {
		panic("loaders: no loaders in the request context (loaders.Middleware missing)")
	}
	return l
}
