// Package durable writes files so that a crash or a kill never leaves a
// part of one: a reader finds the old file or the whole new one. Every
// checkpoint, model, shard and log of a training run is written this way.
package durable

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
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
// untouched.
func Write(path string, write func(io.Writer) error) error {
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
