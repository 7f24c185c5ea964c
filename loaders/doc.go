// Package loaders batches the nested fields of one GraphQL request (REST
// runs the same resolvers): a page of N items asking for their folders,
// attachments, comments... costs one query per loader, not one per item.
//
// # A request's loaders
//
// Middleware puts a fresh Loaders in every request's context; resolvers
// reach it with For(ctx). The loaders are per request because they cache
// what they read for the request's principal, and they answer only from
// store reads scoped to that principal's tenant. Each Loader has one key
// type: an id (Item, Folder, Mdf, the item-keyed lists), or a struct when
// a field's arguments are part of what is read (CommentsKey,
// ThumbnailsKey, TranscriptKey). A batch function answers its keys in key
// order, one result per key; a key the store did not return answers
// loupe.NotFound() (lists answer empty).
//
// # Batching
//
// The executor marshals a list's elements one after the other
// (graph/overrides.go), so when the first element loads, the others have
// not asked yet: a time window alone would fetch one element at a time.
// A Load that misses the cache therefore gathers, before it reads, every
// key it can tell the request will ask next, and reads them all at once;
// the other elements then hit the cache. It gathers, in order:
//
//  1. Hints: keys announced by the resolver that produced the list, or by
//     the values of the level above (folders hint their parents, relations
//     their related items, items their folders and forms).
//  2. The request's items: a loader keyed by item (FoldersOfItem,
//     AttachmentsOfItem, CommentsOfItem, ...) asks the same of every item
//     the request holds, with the arguments of the key that missed: one
//     read per distinct arguments (a grid's comments(first: 2)) however
//     many items.
//  3. Siblings: when nothing above names the key, the list the caller sits
//     in (the executor keeps each field's result in its field context) is
//     searched once for items, folders and relations, which are hinted as
//     the list should have; then 1 and 2 again.
//
// Only a key none of these names (a single item asked by id) waits for
// the dataloader's time window (batchWait), where loads running at the
// same time (sibling fields, top-level fields) meet.
//
// # Hints
//
// A resolver that returns items, folders or relations hints them:
// HintItems, HintItemIDs (ids only: folder content), HintFolders,
// HintRelations. Fields with arguments give no hint of their own: their
// key carries the arguments (rule 2). Hints make batching exact and
// cheap: the first load reads everything, with no search and no wait.
//
// The rule: forgetting a hint costs speed, never N+1. A list that gives
// none is found by the sibling search (rule 3) when its first element
// loads, and still costs one read per loader (resolvers'
// TestForgottenHintsStillBatch counts the statements of lists of 1, 5 and
// 40 items with every hint forgotten). What a resolver must not do is hint
// only its own object's keys: then the key is named, the search never
// runs, and each element reads alone. Load a field's several keys with
// LoadMany instead.
package loaders
