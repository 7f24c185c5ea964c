package media

// The two ways of stills.go, for stills_test.go to hold them equal.
var (
	RenditionsFast   = renditionsFast
	RenditionsByVips = renditionsByVips
)
