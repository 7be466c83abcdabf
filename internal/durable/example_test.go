package durable_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dablot-zero/dablot/internal/durable"
)

// A write that fails half-way leaves the file as it was.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "durable-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state.json")

	if err := durable.WriteFile(path, []byte(`{"generation": 7}`)); err != nil {
		panic(err)
	}
	err = durable.Write(path, func(w io.Writer) error {
		io.WriteString(w, `{"generation": 8, "sha`)
		return errors.New("disk full")
	})
	fmt.Println("error:", err)

	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, %d file(s) in the directory\n", data, len(entries))
	// Output:
	// error: disk full
	// {"generation": 7}, 1 file(s) in the directory
}
