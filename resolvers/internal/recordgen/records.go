package main

// record is one generated record writer. Everything about its fields comes
// from its fragment; this says only where the writer plugs in.
type record struct {
	// Fragment names the fragment: in rest/operations/*.graphql when a REST
	// operation selects it, else in resolvers/records.graphql.
	Fragment string
	// Func is the writer: a method of *Resolver taking ctx, the object
	// (Obj, of the fragment's type) and Vars, answering the record.
	Func, Obj string
	// Vars are the fragment's variables, in parameter order, each a
	// parameter of the same name and Go type.
	Vars []variable
	// Cap is the expression of the buffer's starting capacity: the record's
	// usual size, so that it is written without growing.
	Cap string
	// Doc is the writer's comment.
	Doc string
}

type variable struct{ Name, GoType string }

// records are the generated records.
var records = []record{{
	Fragment: "ItemRecord",
	Func:     "itemRecord",
	Obj:      "it",
	Vars:     []variable{{"readable", "*bool"}},
	Cap:      "2048+len(it.MetadataFormData)+len(it.MediaDoc)+len(it.TechnicalMetadata)",
	Doc:      "itemRecord writes spec 2.2's item record (Item.record, REST GET /api/v1/items/{id}).",
}, {
	Fragment: "FolderContentRecord",
	Func:     "folderContentRecord",
	Obj:      "c",
	Cap:      "256+len(c.Hits)*320",
	Doc:      "folderContentRecord writes a page of spec 2.10's folder content (FolderContent.record, REST GET /api/v1/folders/{folderId}/content).",
}}
