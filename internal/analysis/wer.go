package analysis

import (
	"strings"
	"unicode"
)

// WordErrorRate is the word-level edit distance (substitutions, deletions,
// insertions) from want to got over the number of words of want, words
// compared lowercased without punctuation: how speech recognition is
// judged.
func WordErrorRate(want, got string) float64 {
	w, g := words(want), words(got)
	if len(w) == 0 {
		if len(g) == 0 {
			return 0
		}
		return 1
	}
	d := make([]int, len(g)+1)
	for j := range d {
		d[j] = j
	}
	for i := 1; i <= len(w); i++ {
		prev := d[0]
		d[0] = i
		for j := 1; j <= len(g); j++ {
			cur := d[j]
			cost := 1
			if w[i-1] == g[j-1] {
				cost = 0
			}
			d[j] = min(d[j]+1, d[j-1]+1, prev+cost)
			prev = cur
		}
	}
	return float64(d[len(g)]) / float64(len(w))
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}
