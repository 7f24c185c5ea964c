package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// setting is one row of the settings' documentation (settingsTable):
// variables that go together, their defaults and what they mean, written
// in Markdown (README.md's Configuration table is rendered from it).
type setting struct {
	Names   []string
	Default string
	Meaning string
}

// markdown renders the table as README.md's Configuration table.
func settingsMarkdown(w io.Writer) {
	fmt.Fprintln(w, "| variable | default | meaning |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, s := range settingsTable {
		names := make([]string, len(s.Names))
		for i, n := range s.Names {
			names[i] = "`" + n + "`"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", strings.Join(names, ", "), s.Default, s.Meaning)
	}
}

// settingsHelp prints the table for a terminal: `loupe help serve`.
func settingsHelp(w io.Writer) {
	fmt.Fprint(w, `loupe serve: the server. Settings are environment variables; unset ones
take their defaults. A value that cannot be used stops the start with a
line naming it.

`)
	for _, s := range settingsTable {
		fmt.Fprintf(w, "%s\n    default: %s\n", strings.Join(s.Names, ", "), plain(s.Default))
		for _, line := range wrap(plain(s.Meaning), 72) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}

// wrap cuts text into lines of at most width runes, between words.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// plain is Markdown text as a terminal shows it: without code marks.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// checkSettings answers the configuration's bad values as one error, a
// line each.
func checkSettings(c config) error {
	if len(c.Problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(c.Problems, "\n"))
}
