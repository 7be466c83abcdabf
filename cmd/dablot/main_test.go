package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runMain(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestCommandErrors: bad arguments give a clear message and a non-zero exit,
// never a stack trace.
func TestCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nosuch"}, 2, "unknown command"},
		{[]string{"show"}, 2, "--variant is required"},
		{[]string{"show", "--variant", "nosuch"}, 1, "unknown variant"},
		{[]string{"show", "--variant", "keyland", "--fen", "sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s"}, 1, "rows"},
		{[]string{"show", "--variant", "keyland", "--fen", "x"}, 1, "FEN"},
		{[]string{"show", "--variant", "keyland", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"show", "--variant", "keyland", "extra"}, 2, "unexpected argument"},
		{[]string{"legal", "--variant", "keyland,no_return=maybe"}, 1, "no_return"},
		{[]string{"legal", "--variant", "keyland,=1"}, 1, "want key=value"},
		{[]string{"legal", "--variant", "/nonexistent/v.yaml"}, 1, "variant file"},
		{[]string{"analyse", "perft", "--variant", "keyland"}, 2, "--depth"},
		{[]string{"analyse", "perft", "--variant", "keyland", "--depth", "99"}, 2, "--depth"},
		{[]string{"analyse", "bench"}, 2, "which command? one of: playouts, net, search"},
		{[]string{"analyse", "bench", "nosuch"}, 2, `unknown command "nosuch" (one of: playouts, net, search)`},
		{[]string{"analyse", "bench", "playouts", "--threads", "0"}, 2, "--threads"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"variants"}, []string{"keyland", "daablot-16", "41 points"}},
		{[]string{"variants", "-v"}, []string{"assumed"}},
		{[]string{"show", "--variant", "keyland"}, []string{" 13 s---s", "a b c d e f g h i j k", "15 legal turns"}},
		{[]string{"legal", "--variant", "keyland"}, []string{"i5-i7\nj6-i7\nk7-i7"}},
		{[]string{"legal", "--variant", "keyland", "--decisions"}, []string{"i5-i7"}},
		{[]string{"analyse", "perft", "--variant", "keyland", "--depth", "3"}, []string{"perft(3) = 4361 turns"}},
		{[]string{"analyse", "perft", "--variant", "keyland", "--depth", "2", "--divide"}, []string{"total\t223"}},
		{[]string{"analyse", "perft", "--variant", "winther", "--depth", "2", "--decisions", "--divide"}, []string{"total\t167"}},
		{[]string{"analyse", "bench", "playouts", "--variant", "frostviken", "--seconds", "0.2", "--threads", "2"}, []string{"playouts/s", "decisions/s"}},
		{[]string{"analyse", "bench", "net", "--blocks", "1", "--channels", "16", "--seconds", "0.05"}, []string{"inference", "training", "sgemm 512³", "peak memory (resident)"}},
		{[]string{"analyse", "bench", "search", "--variant", "frostviken", "--blocks", "1", "--channels", "8", "--ownership", "--seconds", "0.1"},
			[]string{"network 1×8, ownership head (", "simulations/s", "network positions/s"}},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, stdout)
			}
		}
	}
}

// helpEntries returns the names of the commands a group's help lists, in
// the order listed: the indented lines under "The commands are:".
func helpEntries(t *testing.T, help string) []string {
	t.Helper()
	_, list, ok := strings.Cut(help, "The commands are:\n\n")
	if !ok {
		t.Fatalf("no list of commands in:\n%s", help)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, line := range strings.Split(list, "\n") {
		names = append(names, strings.Fields(line)[0])
	}
	return names
}

// TestHelpList: "dablot help" (and dablot alone) lists the commands in help
// order, train and play first and the research tools only under analyse,
// whose help lists them in turn.
func TestHelpList(t *testing.T) {
	code, top, stderr := run("help")
	if code != 0 || stderr != "" {
		t.Fatalf("help: exit %d, %s", code, stderr)
	}
	if _, alone, _ := run(); alone != top {
		t.Errorf("dablot alone:\n%s\nwant the help:\n%s", alone, top)
	}
	want := []string{"train", "play", "serve", "engine", "report", "export", "info", "selfplay",
		"arena", "ladder", "variants", "show", "legal", "analyse"}
	if got := helpEntries(t, top); !slices.Equal(got, want) {
		t.Errorf("help lists %q, want %q", got, want)
	}
	for _, line := range []string{
		"  train     train a model by self-play (make train runs it)\n",
		"  analyse   research tools: balance, blunders, kinghunt, kingrace, loneking, endgame, book, compare, diagnose, perft, bench\n",
		`Use "dablot help <command>" for more about a command, its flags included.`,
	} {
		if !strings.Contains(top, line) {
			t.Errorf("help lacks %q:\n%s", line, top)
		}
	}
	code, analyse, _ := run("help", "analyse")
	want = []string{"balance", "blunders", "kinghunt", "kingrace", "loneking", "endgame", "book", "compare", "diagnose", "perft", "bench"}
	if got := helpEntries(t, analyse); code != 0 || !slices.Equal(got, want) {
		t.Errorf("help analyse: exit %d, lists %q, want %q", code, got, want)
	}
	if !strings.Contains(analyse, "\tdablot analyse <command> [arguments]\n") {
		t.Errorf("help analyse lacks its usage:\n%s", analyse)
	}
	if _, bench, _ := run("analyse", "bench", "-h"); !slices.Equal(helpEntries(t, bench), []string{"playouts", "net", "search"}) {
		t.Errorf("analyse bench -h:\n%s", bench)
	}
}

// TestHelpCommands: every command has a short and a long description, and
// "dablot help PATH" prints a command's usage line, long description and
// flags, the same text as "dablot PATH -h".
func TestHelpCommands(t *testing.T) {
	all := dablot.all()
	if len(all) < 20 {
		t.Fatalf("%d commands", len(all))
	}
	for _, c := range all {
		path := strings.Fields(c.path())
		if c.short == "" || c.long == "" || strings.Contains(c.short, "\n") {
			t.Errorf("%s: short %q, long %q", c.line(), c.short, c.long)
		}
		code, help, stderr := run(append([]string{"help"}, path...)...)
		if code != 0 || stderr != "" {
			t.Errorf("help %s: exit %d, %s", c.path(), code, stderr)
			continue
		}
		firstLong, _, _ := strings.Cut(c.long, "\n")
		if !strings.Contains(help, firstLong) {
			t.Errorf("help %s lacks its long description %q:\n%s", c.path(), firstLong, help)
		}
		if c.run != nil {
			if c.usage == "" {
				t.Errorf("%s: no usage line", c.line())
			}
			if want := "usage: " + c.line() + " " + c.usage + "\n"; !strings.HasPrefix(help, want) {
				t.Errorf("help %s begins\n%.200s\nwant %q", c.path(), help, want)
			}
			if hasFlags := c != cmdInfo; hasFlags != strings.Contains(help, "\nFlags:\n  -") {
				t.Errorf("help %s: want flags listed %v:\n%s", c.path(), hasFlags, help)
			}
		}
		if _, dashH, _ := run(append(path, "-h")...); dashH != help {
			t.Errorf("%s -h differs from help %s:\n%s", c.line(), c.path(), dashH)
		}
	}
	// The flags help lists are the command's own.
	for path, flag := range map[string]string{"train": "-config", "analyse balance": "-variants", "analyse bench net": "-points"} {
		_, help, _ := run(append([]string{"help"}, strings.Fields(path)...)...)
		if !strings.Contains(help, "  "+flag+" ") {
			t.Errorf("help %s lacks %s:\n%s", path, flag, help)
		}
	}
}

// TestHelpErrors: an unknown command or help topic is a usage error that
// says what to run; a research tool asked for at the top level is pointed
// to its place under analyse.
func TestHelpErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"blunders"}, "dablot: unknown command \"blunders\": did you mean \"dablot analyse blunders\"?\nrun \"dablot help\" for the commands\n"},
		{[]string{"nosuch"}, "dablot: unknown command \"nosuch\" (one of: train, play, serve,"},
		{[]string{"help", "nosuch"}, `help nosuch: unknown command "nosuch"`},
		{[]string{"help", "analyse", "train"}, `help analyse train: unknown command "train"`},
		{[]string{"analyse"}, "dablot analyse: which command? one of: balance, blunders, kinghunt, kingrace, loneking, endgame, book, compare, diagnose, perft, bench\nrun \"dablot help analyse\" for the commands\n"},
		{[]string{"arena", "--bogus"}, "dablot arena: flag provided but not defined: -bogus\nrun \"dablot help arena\" for its usage\n"},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestRangeFlags: the range-checked flags of every kind of command give the
// one error, "--NAME VALUE: want LO to HI", before the command does anything.
func TestRangeFlags(t *testing.T) {
	format := regexp.MustCompile(`^dablot [a-z ]+: --[a-z-]+ \S+: want -?[0-9.]+ to [0-9.]+\n`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"arena", "--variant", "keyland", "--a", "random", "--b", "greedy", "--games", "0"}, "dablot arena: --games 0: want 1 to 1000000\n"},
		{[]string{"arena", "--variant", "keyland", "--endgames", "-2"}, "dablot arena: --endgames -2: want -1 to 128\n"},
		{[]string{"ladder", "m.dbm", "--ms", "0"}, "dablot ladder: --ms 0: want 1 to 600000\n"},
		{[]string{"ladder", "m.dbm", "--games", "1"}, "dablot ladder: --games 1: want 2 to 1000000\n"},
		{[]string{"play", "--model", "m.dbm", "--threads", "65"}, "dablot play: --threads 65: want 1 to 64\n"},
		{[]string{"play", "--model", "m.dbm", "--sims", "-1"}, "dablot play: --sims -1: want 0 to 1000000\n"},
		{[]string{"play", "--model", "m.dbm", "--movetime", "3600001"}, "dablot play: --movetime 3600001: want 0 to 3600000\n"},
		{[]string{"engine", "--model", "m.dbm", "--pv", "101"}, "dablot engine: --pv 101: want 0 to 100\n"},
		{[]string{"serve", "--model", "m.dbm", "--max-sims", "0"}, "dablot serve: --max-sims 0: want 1 to 1000000\n"},
		{[]string{"train", "--config", "smoke", "--threads", "-1"}, "dablot train: --threads -1: want 0 to 256\n"},
		{[]string{"selfplay", "--run", "r", "--shards", "-1"}, "dablot selfplay: --shards -1: want 0 to 1000000\n"},
		{[]string{"analyse", "balance", "--variants", "keyland", "--workers", "0"}, "dablot analyse balance: --workers 0: want 1 to 4096\n"},
		{[]string{"analyse", "balance", "--variants", "keyland", "--temp", "NaN"}, "dablot analyse balance: --temp NaN: want 0 to 100\n"},
		{[]string{"analyse", "blunders", "--records", "g.pgn", "--player", "random", "--every", "0"}, "dablot analyse blunders: --every 0: want 1 to 1000000\n"},
		{[]string{"analyse", "kinghunt", "--records", "g.pgn", "--king", "5"}, "dablot analyse kinghunt: --king 5: want 6 to 1000\n"},
		{[]string{"analyse", "loneking", "--soldiers", "3"}, "dablot analyse loneking: --soldiers 3: want 0 to 2\n"},
		{[]string{"analyse", "perft", "--variant", "keyland", "--depth", "13"}, "dablot analyse perft: --depth 13: want 1 to 12\n"},
		{[]string{"analyse", "bench", "playouts", "--seconds", "0"}, "dablot analyse bench playouts: --seconds 0: want 0.01 to 3600\n"},
		{[]string{"analyse", "bench", "net", "--threads", "257"}, "dablot analyse bench net: --threads 257: want 1 to 256\n"},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) || !format.MatchString(stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestRangeHelper: rangeFlag (int and float64) and millisVar accept their bounds,
// refuse values outside them (a default too, and NaN) with the one error,
// and report the first flag out of range in the order defined.
func TestRangeHelper(t *testing.T) {
	for _, tc := range []struct {
		args []string
		def  int // of --n
		want string
	}{
		{nil, 5, ""},
		{[]string{"--n", "1", "--x", "-0.5", "--ms", "0"}, 5, ""},
		{[]string{"--n", "10", "--x", "0.5", "--ms", "2000"}, 5, ""},
		{[]string{"--n", "0"}, 5, "--n 0: want 1 to 10"},
		{[]string{"--n", "11"}, 5, "--n 11: want 1 to 10"},
		{nil, 0, "--n 0: want 1 to 10"}, // the default is checked too
		{[]string{"--x", "0.51"}, 5, "--x 0.51: want -0.5 to 0.5"},
		{[]string{"--x", "NaN"}, 5, "--x NaN: want -0.5 to 0.5"},
		{[]string{"--x", "-Inf"}, 5, "--x -Inf: want -0.5 to 0.5"},
		{[]string{"--ms", "2001"}, 5, "--ms 2001: want 0 to 2000"},
		{[]string{"--ms", "-1", "--n", "0"}, 5, "--n 0: want 1 to 10"}, // in the order defined
		{[]string{"--n", "x"}, 5, `invalid value "x" for flag -n: parse error`},
	} {
		fs := newFlags("test", io.Discard)
		n := rangeFlag(fs, "n", tc.def, 1, 10, "a count")
		x := rangeFlag[float64](fs, "x", 0, -0.5, 0.5, "a share")
		var d time.Duration
		millisVar(fs, &d, "ms", 0, 2000, "a time")
		err := parseFlags(fs, tc.args)
		var ue usageError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.As(err, &ue)):
			t.Errorf("%v: error %v, want the usage error %q", tc.args, err, tc.want)
		case tc.want == "" && len(tc.args) == 6:
			if v, _ := strconv.Atoi(tc.args[1]); *n != v || fmt.Sprint(*x) != tc.args[3] || fmt.Sprint(d.Milliseconds()) != tc.args[5] {
				t.Errorf("%v: n %d, x %v, ms %v", tc.args, *n, *x, d)
			}
		}
	}
	fs := newFlags("test", io.Discard)
	rangeFlag(fs, "n", 5, 1, 10, "a count")
	var usage bytes.Buffer
	fs.SetOutput(&usage)
	fs.PrintDefaults()
	if !strings.Contains(usage.String(), "a count (from 1 to 10) (default 5)") {
		t.Errorf("the usage does not give the range:\n%s", usage.String())
	}
}

// wantOutput fails t for each of wants that out does not contain, showing
// out.
func wantOutput(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
