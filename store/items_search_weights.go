package store

import "strings"

// A hit's tier is the first of the title, file-name and metadata classes
// whose weights hold all of its terms (docs/search.md, "Ranking"). The
// tiers' GIN indexes are on ts_filter(search, weights), so a read of a
// tier from its index says it that way; but where the tier of a row
// already read is computed (the first statement's tier sample and its
// page, the walks), ts_filter copies each vector to test it. A query whose
// operands carry the weights ('news':*A) asks the same of the vector as
// it is: 4 ms instead of 17 ms for the tiers of the 1,000 newest hits at
// 10M items. TestWeightedQueryEqualsFilteredVector holds the two equal.

// weightQuery is a tsquery's text (Postgres' canonical form, as
// loupe_search_query_2 answers it) with every operand restricted to the
// weights w ("A", "AB", "ABC"): 'news':* becomes 'news':*A, 'car'
// becomes 'car':A. Operators and parentheses are kept as they are.
func weightQuery(tsquery, w string) string {
	var b strings.Builder
	b.Grow(len(tsquery) + 8*len(w))
	for i := 0; i < len(tsquery); i++ {
		c := tsquery[i]
		b.WriteByte(c)
		if c != '\'' {
			continue
		}
		// An operand: up to its closing quote ('' is a quote, a backslash
		// escapes the next byte).
		for i++; i < len(tsquery); i++ {
			c = tsquery[i]
			b.WriteByte(c)
			if c == '\\' && i+1 < len(tsquery) {
				i++
				b.WriteByte(tsquery[i])
				continue
			}
			if c == '\'' {
				if i+1 < len(tsquery) && tsquery[i+1] == '\'' {
					i++
					b.WriteByte('\'')
					continue
				}
				break
			}
		}
		// Its flags (prefix, weights) follow a colon.
		if i+1 < len(tsquery) && tsquery[i+1] == ':' {
			i++
			b.WriteByte(':')
			for i+1 < len(tsquery) && strings.IndexByte("*ABCDabcd", tsquery[i+1]) >= 0 {
				i++
				if tsquery[i] == '*' {
					b.WriteByte('*')
				}
			}
		} else {
			b.WriteByte(':')
		}
		b.WriteString(w)
	}
	return b.String()
}
