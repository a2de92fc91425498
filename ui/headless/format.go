package headless

import (
	"fmt"
	"io"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// Format is an output format of --once (live and replayed): how it
// prints a group's annotated snapshot and the overview's groups. A new
// format is one entry of Formats.
type Format struct {
	Name     string
	Snapshot func(model.Snapshot) ([]byte, error)
	Overview func([]model.GroupSummary) ([]byte, error)
}

// Formats are the formats of --output, the default first.
func Formats() []Format {
	return []Format{
		{Name: "table", Snapshot: text(model.FormatTable), Overview: text(model.FormatOverview)},
		{Name: "json", Snapshot: model.MarshalJSONSnapshot, Overview: model.MarshalJSONOverview},
	}
}

func text[T any](format func(T) string) func(T) ([]byte, error) {
	return func(v T) ([]byte, error) { return []byte(format(v)), nil }
}

// FormatNames lists the formats' names as a sentence: "table or json".
func FormatNames() string {
	fs := Formats()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// LookupFormat is the format named name; another name is a
// model.UsageError that lists them.
func LookupFormat(name string) (Format, error) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, nil
		}
	}
	return Format{}, model.Usagef("unknown output format %q: use %s", name, FormatNames())
}

// PrintSnapshot writes s, annotated, to w.
func (f Format) PrintSnapshot(w io.Writer, s model.Snapshot) error {
	b, err := f.Snapshot(s)
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// PrintOverview writes the overview's groups to w.
func (f Format) PrintOverview(w io.Writer, gs []model.GroupSummary) error {
	b, err := f.Overview(gs)
	if err != nil {
		return fmt.Errorf("encode overview: %w", err)
	}
	_, err = w.Write(b)
	return err
}
