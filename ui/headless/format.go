package headless

import (
	"fmt"
	"io"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// Format is an output format of --once (live and replayed): how it
// prints a group's annotated snapshot, in the view the format is given
// (View), and the overview's groups. A new format is one entry of
// Formats.
type Format struct {
	Name string
	// Snapshot writes a snapshot as it is laid out (a table of 50,000
	// partitions is ~7 MB: not held whole).
	Snapshot func(io.Writer, model.Snapshot, model.TableView) error
	Overview func([]model.GroupSummary) ([]byte, error)
	// Views: the format prints the views of --members, --state and
	// --verbose; one that does not holds every field in any view.
	Views bool
	// View is the view PrintSnapshot prints (the zero view: offsets).
	View model.TableView
}

// Formats are the formats of --output, the default first.
func Formats() []Format {
	return []Format{
		{Name: "table", Snapshot: model.WriteTableView, Overview: text(model.FormatOverview), Views: true},
		{Name: "json", Snapshot: anyView(model.WriteJSONSnapshot), Overview: model.MarshalJSONOverview},
	}
}

func text[T any](format func(T) string) func(T) ([]byte, error) {
	return func(v T) ([]byte, error) { return []byte(format(v)), nil }
}

// anyView is a snapshot printer that prints every view alike.
func anyView(f func(io.Writer, model.Snapshot) error) func(io.Writer, model.Snapshot, model.TableView) error {
	return func(w io.Writer, s model.Snapshot, _ model.TableView) error { return f(w, s) }
}

// WithView is f printing snapshots in view v: a model.UsageError when
// f prints one view only and v is another.
func (f Format) WithView(v model.TableView) (Format, error) {
	if v != (model.TableView{}) && !f.Views {
		return f, model.Usagef("--members, --state and --verbose choose the table's columns; -o %s holds them all", f.Name)
	}
	f.View = v
	return f, nil
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
	return f.Snapshot(w, s, f.View)
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

// CheckView checks --offsets, --members, --state and --verbose (changed
// says which were given), which pick the --once table's view v: one view
// at most, with --once and a group. It returns f printing v.
func CheckView(changed func(string) bool, once bool, group string, f Format, v model.TableView) (Format, error) {
	var views []string
	for _, name := range []string{"offsets", "members", "state"} {
		if changed(name) {
			views = append(views, "--"+name)
		}
	}
	switch {
	case len(views) > 1:
		return f, model.Usagef("%s: choose one view", strings.Join(views, " and "))
	case len(views) == 0 && !changed("verbose"):
		return f, nil
	case !once:
		return f, model.UsageError{Msg: "--offsets, --members, --state and --verbose choose what --once prints"}
	case group == "":
		return f, model.UsageError{Msg: "--offsets, --members, --state and --verbose describe one group: give --group"}
	}
	return f.WithView(v)
}
