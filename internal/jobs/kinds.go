package jobs

// The job kinds. Each kind's arguments live here, so that the code asking
// for the work (the store, inside the transaction of the change) and the
// worker doing it agree on one type; workers live with their features.
// Arguments are the job's identity for uniqueness: keep them to ids.

// ProcessArgs asks for an item's media to be processed (probe, proxies,
// thumbnails…): inserted when an upload completes or an object is ingested.
type ProcessArgs struct {
	// The item is the job's identity for uniqueness (river:"unique"): a
	// second request while one waits or runs is the same job.
	TenantID string `json:"tenantId" river:"unique"`
	ItemID   string `json:"itemId" river:"unique"`
	// Reason says what asked: "upload", "ingest", "request".
	Reason string `json:"reason"`
	// Steps are the steps asked for (none: all).
	Steps []string `json:"steps,omitempty"`
}

// Kind is the job kind in River's tables.
func (ProcessArgs) Kind() string { return "process_item" }
