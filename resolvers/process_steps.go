package resolvers

import (
	"slices"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
)

// splitSteps parts the steps of a process request into processing's
// (checked by pipeline.StepsOf) and analysis kinds (in their running order,
// once each). No steps: all processing, analyses by the switches.
func splitSteps(names []string) (steps, kinds []string, err error) {
	for _, n := range names {
		if slices.Contains(jobs.AnalysisKinds, n) {
			if !slices.Contains(kinds, n) {
				kinds = append(kinds, n)
			}
			continue
		}
		steps = append(steps, n)
	}
	if _, err := pipeline.StepsOf(steps); err != nil {
		return nil, nil, loupe.Invalid("steps: %s (or an analysis: %s)", err.Error(), strings.Join(jobs.AnalysisKinds, ", "))
	}
	slices.SortFunc(kinds, func(a, b string) int {
		return slices.Index(jobs.AnalysisKinds, a) - slices.Index(jobs.AnalysisKinds, b)
	})
	return steps, kinds, nil
}
