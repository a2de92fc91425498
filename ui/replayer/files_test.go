package replayer

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

// Root reads a file of mode 000: the wording of the errno the open gets
// as any other user (the end-to-end test cannot see it as root).
func TestOpenErrorPermission(t *testing.T) {
	err := openError("r.kgw", &fs.PathError{Op: "open", Path: "r.kgw", Err: syscall.EACCES})
	if got, want := err.Error(), "r.kgw: permission denied: kgwatch cannot read it"; got != want || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("permission denied: %q (is ErrPermission %v), want %q", got, errors.Is(err, fs.ErrPermission), want)
	}
}
