// Package durable writes and reads the program's files safely. A write
// never leaves a part of a file after a crash or a kill: a reader finds the
// old file or the whole new one; every checkpoint, model, shard and log of a
// training run is written this way. A write replaces only a regular file or
// makes a new one, never a device, a named pipe, a directory or a symbolic
// link at the path. A read takes only a regular file, and at most a size
// limit that fits the file's kind, so that a device such as /dev/zero or a
// named pipe gives an error at once instead of growing without bound or
// blocking for ever.
//
// Every file the program writes at a path a user names goes through Write,
// WriteFile, Create or Append, and every file it reads through ReadFile.
package durable

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// WriteFile is like os.WriteFile, but atomic: see Write.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces the file path by what write writes, so that a
// reader sees the old file or the whole new one, never a part. It writes a
// temporary file in the same directory, syncs it, renames it over path and
// syncs the directory. The file gets the mode of the file it replaces, or
// 0644 if there is none. On error the temporary file is removed and path is
// untouched; a path that holds anything but a regular file is an error
// (see CheckTarget).
func Write(path string, write func(io.Writer) error) error {
	if err := CheckTarget(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		// CreateTemp makes the file private (0600); models, shards and logs
		// are for sharing.
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return err
	}
	// Make the rename itself durable; not every system can sync a directory.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Create opens path for writing from the start, as os.Create does, for
// output written as it is made (game records as games end); the file is not
// atomic. Like Write it refuses a path that holds anything but a regular
// file.
func Create(path string) (*os.File, error) {
	return openTarget(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

// Append opens path for appending, creating it if need be; like Write it
// refuses a path that holds anything but a regular file.
func Append(path string) (*os.File, error) {
	return openTarget(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
}

func openTarget(path string, flag int) (*os.File, error) {
	if err := CheckTarget(path); err != nil {
		return nil, err
	}
	return os.OpenFile(path, flag, 0o644)
}

// CheckTarget reports whether path may be written: it must not exist, or
// be a regular file. A device, a named pipe, a socket, a directory or a
// symbolic link (whatever it points to) is an error naming what it is.
func CheckTarget(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file: refusing to write over it (give a new path or a regular file)", path, kind(st.Mode()))
	}
	return nil
}

// ReadFile reads the regular file path, of at most limit bytes; what names
// the kind of file in errors ("model file"), which name the path too. A path that is not a regular
// file (a device, a named pipe, a directory), or a file larger than limit,
// is an error, found before reading: a named pipe is not even opened, so
// it cannot block. A symbolic link is followed.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	f, err := Open(path, what, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew past %s while it was read, more than a %s may have", path, Size(limit), what)
	}
	return data, nil
}

// Open opens for reading a regular file of at most limit bytes, under the
// same checks as ReadFile, for a reader that streams it; the caller must
// still bound what it reads, since the file may grow.
func Open(path, what string, limit int64) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkSource(path, what, st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The path may have changed between Stat and Open.
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if err := checkSource(path, what, st, limit); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkSource reports a file that ReadFile may not read.
func checkSource(path, what string, st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file (want a %s)", path, kind(st.Mode()), what)
	}
	if st.Size() > limit {
		return fmt.Errorf("%s is %s, more than a %s may have (%s)", path, Size(st.Size()), what, Size(limit))
	}
	return nil
}

// kind names what a file mode is, for messages.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// Size writes a number of bytes as people read it: "712 bytes", "64 KiB",
// "1.5 GiB (1610612737 bytes)" (the exact count when the unit rounds it).
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	x, u, div := float64(n), -1, int64(1)
	for x >= unit && u < 3 {
		x /= unit
		u++
		div *= unit
	}
	num := strconv.FormatFloat(x, 'g', 4, 64)
	s := num + " " + string("KMGT"[u]) + "iB"
	if v, _ := strconv.ParseFloat(num, 64); v*float64(div) != float64(n) {
		s += fmt.Sprintf(" (%d bytes)", n)
	}
	return s
}

// MoveAside renames path (a file or a directory) to a free name that
// says when: path with "-YYYYMMDD-hhmmss" of when inserted before ext (a
// suffix of path such as ".jsonl", kept last so that the name still says
// the format; "" for none), and "-2", "-3", … after the time if that name
// is taken. It returns the new name. Nothing is deleted.
func MoveAside(path string, when time.Time, ext string) (string, error) {
	base := strings.TrimSuffix(filepath.Clean(path), ext) + "-" + when.Format("20060102-150405")
	to := base + ext
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if i > 100 {
			return "", fmt.Errorf("setting %s aside: %s and 99 more names are taken", path, base+ext)
		}
		to = fmt.Sprintf("%s-%d%s", base, i, ext)
	}
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("setting %s aside: %w", path, err)
	}
	return to, nil
}
