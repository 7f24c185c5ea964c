package loupe

// JSONLimit bounds a free-form JSON value that a client stores: its size
// encoded, how deeply arrays and objects nest in it (a string or number
// alone is 0 deep, {"a":[1]} is 2), and how many keys one object and
// elements one array may hold. A value past any bound is refused whole
// (400 naming the field) before anything is written; docs/input-limits.md
// gives the reasons for each number.
type JSONLimit struct {
	Bytes int
	Depth int
	Keys  int
	Items int
}

// JSONInputs is the one table of limits: every JSON-typed input of the API
// by its name in the schema, an input object's field or, for a JSON
// argument of a root field, "field(argument)". REST bodies reach the same
// inputs (a route runs its GraphQL operation), so the table covers both
// APIs; a test in graph holds it equal to the schema.
var JSONInputs = map[string]JSONLimit{
	// An item's or folder's metadata: one value per field of its form
	// (at most 500 fields), a multi-select up to 5,000 options, text values
	// up to 100,000 characters, person and user values small objects.
	"formData": {Bytes: 256 << 10, Depth: 4, Keys: 500, Items: 5000},
	// Eight positions, each an icon value (a name, a color, a tooltip...).
	"customIcons": {Bytes: 16 << 10, Depth: 4, Keys: 16, Items: 16},
	// An MDF's layout and rules, read by frontends as they render a form.
	"views":        {Bytes: 64 << 10, Depth: 8, Keys: 500, Items: 500},
	"viewSections": {Bytes: 64 << 10, Depth: 8, Keys: 500, Items: 500},
	"permissions":  {Bytes: 64 << 10, Depth: 6, Keys: 500, Items: 1000},
	"usageRules":   {Bytes: 64 << 10, Depth: 6, Keys: 100, Items: 100},
	// A form field's default: one value of the field's type.
	"defaultValue": {Bytes: 64 << 10, Depth: 3, Keys: 50, Items: 5000},
	// The tenant's configuration as a whole (its stored document is capped
	// at 1 MiB too) and one user's settings.
	"updateTenantConfig(input)": {Bytes: 1 << 20, Depth: 10, Keys: 1000, Items: 1000},
	"updateUserSettings(input)": {Bytes: 256 << 10, Depth: 8, Keys: 1000, Items: 1000},
	// An ingest configuration's analysis switches and their settings, the
	// metadata ({formId, formData}) and timed metadata its items start
	// with, and who sees them (docs/ingest.md).
	"analyticConfig":       {Bytes: 64 << 10, Depth: 6, Keys: 200, Items: 200},
	"defaultMetadata":      {Bytes: 256 << 10, Depth: 5, Keys: 500, Items: 5000},
	"defaultTimedMetadata": {Bytes: 256 << 10, Depth: 6, Keys: 500, Items: 5000},
	"visibleTo":            {Bytes: 16 << 10, Depth: 3, Keys: 8, Items: 100},
}

// DefaultJSONLimit holds a JSON input missing from JSONInputs (which a test
// rules out): the tightest row, so that forgetting a row never loosens the
// gate.
var DefaultJSONLimit = JSONLimit{Bytes: 16 << 10, Depth: 3, Keys: 8, Items: 8}

// LimitOf returns the limit of the JSON input named name.
func LimitOf(name string) JSONLimit {
	if l, ok := JSONInputs[name]; ok {
		return l
	}
	return DefaultJSONLimit
}
