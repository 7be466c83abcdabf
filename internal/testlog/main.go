// Command testlog reads `go test -json` from standard input and writes
// what plain `go test` writes, a line a package (all of a failing
// package's output), plus every skipped test with its reason, so that a
// test log shows what did not run and why. make test pipes into it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	failed, err := filter(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testlog:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// filter copies the events of in to out as plain go test output with the
// skipped tests named, and reports whether a package or test failed.
func filter(in io.Reader, out io.Writer) (bool, error) {
	pkgOut := map[string][]string{}  // a package's output so far
	testOut := map[string][]string{} // a test's, by package and name
	failed := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(out, sc.Text()) // not an event: the build's own output
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "build-output": // a package that does not build: its errors
			fmt.Fprint(out, e.Output)
		case "output":
			pkgOut[e.Package] = append(pkgOut[e.Package], e.Output)
			if e.Test != "" {
				testOut[key] = append(testOut[key], e.Output)
			}
		case "skip":
			if e.Test != "" {
				for _, l := range testOut[key] {
					if !strings.HasPrefix(l, "=== ") {
						fmt.Fprintf(out, "%s: %s", e.Package, l)
					}
				}
			}
			delete(testOut, key)
		case "pass", "fail":
			delete(testOut, key)
			if e.Test != "" {
				break
			}
			lines := pkgOut[e.Package]
			if e.Action == "fail" {
				failed = true
				fmt.Fprint(out, strings.Join(lines, ""))
			} else if len(lines) > 0 {
				fmt.Fprint(out, lines[len(lines)-1]) // "ok  \tpkg\t1.2s"
			}
			delete(pkgOut, e.Package)
		}
	}
	return failed, sc.Err()
}
