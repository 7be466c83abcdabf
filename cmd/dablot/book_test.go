package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBookCommand: the book command makes the shipped books again, byte
// for byte, and refuses bad flags.
func TestBookCommand(t *testing.T) {
	want, err := os.ReadFile("../../configs/books/frostviken.txt")
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run("analyse", "book", "--variant", "frostviken")
	if code != 0 || stdout != string(want) {
		t.Fatalf("exit %d (%s); the book differs from configs/books/frostviken.txt:\n%s", code, stderr, stdout)
	}
	path := filepath.Join(t.TempDir(), "f.txt")
	out, err := runCmd(t, "analyse", "book", "--variant", "frostviken", "--openings", "4", "--depth", "2", "--seed", "9", "--out", path)
	if err != nil || !strings.Contains(out, "4 openings of frostviken") {
		t.Fatalf("%v\n%s", err, out)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "# Made by: dablot analyse book --variant frostviken --openings 4 --turns 8 --depth 2 --margin 50 --seed 9\n") {
		t.Errorf("header:\n%s", data)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "--variant is required"},
		{[]string{"--variant", "nosuch"}, 1, "unknown variant"},
		{[]string{"--variant", "dablot", "--openings", "0"}, 2, "--openings 0: want 1 to 10000"},
		{[]string{"--variant", "dablot", "--depth", "9"}, 2, "--depth 9"},
		{[]string{"--variant", "dablot", "--margin", "-1"}, 2, "--margin -1"},
		{[]string{"--variant", "dablot", "--turns", "0", "--openings", "2"}, 1, "of 2 openings are level and distinct after 1000 random ones"},
	} {
		code, _, stderr := run(append([]string{"analyse", "book"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
