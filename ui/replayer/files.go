package replayer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
)

// openRecording opens path to read it; twice: it will be read again
// (--once and the TUI), so it must be a regular file, not a pipe whose
// bytes the first read takes.
func openRecording(path string, twice bool) (*os.File, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, openError(path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a kgwatch recording", model.Printable(path))
	case twice && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file: replay --once and the TUI read a recording twice, so save it to a file first (replay --events reads it once)", model.Printable(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	return f, nil
}

// openRecordingContext is openRecording given up when ctx ends: a FIFO
// with no writer blocks its open(2), and a signal must still end
// kgwatch. The open left behind finishes on its own goroutine (and its
// file is closed) once a writer comes; nothing waits for it. Once open,
// the file is closed when ctx ends, so a read waiting on a silent
// writer ends too (stop undoes that).
func openRecordingContext(ctx context.Context, path string, twice bool) (f *os.File, stop func() bool, err error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := openRecording(path, twice)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, nil, o.err
		}
		return o.f, context.AfterFunc(ctx, func() { o.f.Close() }), nil
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, nil, fmt.Errorf("open %s: %w", model.Printable(path), context.Cause(ctx))
	}
}

// openError words why the recording at path cannot be opened: its name
// and the reason (not Go's "stat NAME: …"), and what replay wants.
func openError(path string, err error) error {
	name := model.Printable(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the errno: "no such file or directory"
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w (kgwatch replay FILE plays a recording made with --record)", name, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: %w: kgwatch cannot read it", name, err)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s: %w (a part of the path is a file)", name, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// recordingError words what NewReader and Scan refuse, naming the file.
func recordingError(path string, err error) error {
	var nf *record.NewerFormatError
	var he *record.HeaderError
	switch {
	case errors.As(err, &nf):
		return fmt.Errorf("%s was %w", path, err)
	case errors.As(err, &he):
		return fmt.Errorf("%s is damaged: %w", path, err)
	case errors.Is(err, record.ErrNotRecording):
		return fmt.Errorf("%s is not a kgwatch recording", path)
	}
	return fmt.Errorf("read %s: %w", path, err)
}

// endNote is how a recording that does not end cleanly ends: the note
// on stderr of one whose writer was killed, or whose last record is cut
// short (what a crash leaves), or the error of a damaged one. Every path
// says it the same way, from the Summary of the recording read through
// (Scan's, or --events' one reading).
func endNote(path string, sum record.Summary) (note string, damage error) {
	name := model.Printable(path)
	upTo := func(t time.Time) string {
		if t.IsZero() {
			return "it holds no record"
		}
		return "replayed up to " + t.Local().Format("15:04:05") + " (" + playTime(t.Sub(sum.Header.Started)) + " in)"
	}
	var d *record.DamagedError
	switch {
	case sum.End == nil:
		return "", nil
	case errors.Is(sum.End, record.ErrUnfinished):
		return fmt.Sprintf("kgwatch: %s ends without its end mark (kgwatch was killed?): %s", name, upTo(sum.Last)), nil
	case errors.As(sum.End, &d) && d.Truncated:
		return fmt.Sprintf("kgwatch: %s: the last record is cut short (a crash or a full disk?) and is ignored: %s", name, upTo(sum.Last)), nil
	case errors.Is(sum.End, record.ErrChecksum):
		return "", fmt.Errorf("%s is damaged: %w: played to its end, %s (%s in), but a value shown may be wrong", path, record.ErrChecksum,
			sum.Last.Local().Format("15:04:05"), playTime(sum.Last.Sub(sum.Header.Started)))
	case sum.Last.IsZero():
		return "", fmt.Errorf("%s is damaged: its first record cannot be read, nothing was played: %w", path, sum.End)
	default:
		return "", fmt.Errorf("%s is damaged: played to %s (%s in), the last good record: %w", path,
			sum.Last.Local().Format("15:04:05"), playTime(sum.Last.Sub(sum.Header.Started)), sum.End)
	}
}

// shortEndNote is the replay bar's words for a recording that does not
// end cleanly.
func shortEndNote(sum record.Summary) string {
	var d *record.DamagedError
	switch {
	case sum.End == nil:
		return ""
	case errors.Is(sum.End, record.ErrUnfinished):
		return "no end mark: kgwatch was killed?"
	case errors.As(sum.End, &d) && d.Truncated:
		return "its last record was cut short"
	}
	return "damaged: the rest is not shown"
}

func groupList(gs []string) string {
	if len(gs) == 0 {
		return "none was opened"
	}
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = model.Printable(g)
	}
	return strings.Join(out, ", ")
}

// readRecording opens path for its records.
func readRecording(path string) (*record.Reader, *os.File, error) {
	f, err := openRecording(path, true)
	if err != nil {
		return nil, nil, err
	}
	r, err := record.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, recordingError(path, err)
	}
	return r, f, nil
}

// fileReader is a recording's reader and the file it reads.
type fileReader struct {
	*record.Reader
	f *os.File
}

func (r fileReader) Close() error { return r.f.Close() }
