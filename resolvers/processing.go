package resolvers

// processSteps are the steps processItem may name (docs/processing.md).
var processSteps = map[string]bool{"proxy": true, "thumbnails": true, "strip": true, "waveform": true}
