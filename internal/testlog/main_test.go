package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestFilter: a passing package gives its one line, a failing one all its
// output, and a skipped test its reason, whatever the package did.
func TestFilter(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"a","Test":"TestX"}`,
		`{"Action":"output","Package":"a","Test":"TestX","Output":"=== RUN   TestX\n"}`,
		`{"Action":"output","Package":"a","Test":"TestX","Output":"    x_test.go:9: no browser: skipped\n"}`,
		`{"Action":"output","Package":"a","Test":"TestX","Output":"--- SKIP: TestX (0.00s)\n"}`,
		`{"Action":"skip","Package":"a","Test":"TestX"}`,
		`{"Action":"output","Package":"a","Test":"TestY","Output":"--- PASS: TestY (0.00s)\n"}`,
		`{"Action":"pass","Package":"a","Test":"TestY"}`,
		`{"Action":"output","Package":"a","Output":"ok  \ta\t0.1s\n"}`,
		`{"Action":"pass","Package":"a"}`,
		`{"Action":"output","Package":"b","Test":"TestZ","Output":"    z_test.go:3: want 2\n"}`,
		`{"Action":"fail","Package":"b","Test":"TestZ"}`,
		`{"Action":"output","Package":"b","Output":"FAIL\tb\t0.2s\n"}`,
		`{"Action":"fail","Package":"b"}`,
		`{"Action":"build-output","ImportPath":"c","Output":"c/c.go:2:8: syntax error\n"}`,
		`# a build error`,
	}, "\n")
	var out bytes.Buffer
	failed, err := filter(strings.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, %v; want true", failed, err)
	}
	want := "a:     x_test.go:9: no browser: skipped\na: --- SKIP: TestX (0.00s)\nok  \ta\t0.1s\n" +
		"    z_test.go:3: want 2\nFAIL\tb\t0.2s\nc/c.go:2:8: syntax error\n# a build error\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
