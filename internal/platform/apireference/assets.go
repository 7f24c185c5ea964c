package apireference

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/loupe-mam/loupe/internal/platform/webassets"
)

// The page, its script and style, and the third-party files ./refresh
// copies; index.html is a template naming the others (asset).
//
//go:embed assets
var embedded embed.FS

// build reads the embedded files and renders the page, naming each file
// relative to the page (Path's last segment), with its version.
func build() (*webassets.Set, error) {
	root, err := fs.Sub(embedded, "assets")
	if err != nil {
		return nil, err
	}
	return webassets.Build(root, "index.html", strings.TrimPrefix(Path, "/")+"/")
}
