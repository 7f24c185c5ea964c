package store

import (
	"encoding/json"
	"fmt"

	"github.com/loupe-mam/loupe"
)

// jsonUnmarshal decodes a document the store wrote itself.
func jsonUnmarshal(j loupe.JSON, v any) error {
	if err := json.Unmarshal(j, v); err != nil {
		return fmt.Errorf("store: unreadable document: %w", err)
	}
	return nil
}
