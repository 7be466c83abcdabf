package configs_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dablot-zero/dablot/configs"
)

// The module root, seen from this package's directory.
const repoRoot = ".."

// TestNothingLinksOutsideRepository checks that a clone is complete: no file
// of the repository refers to the folder "shared" that stands beside the
// project where it is developed (a clone has no such folder), and every
// relative link of a Markdown file names a file inside the repository that
// exists, and a heading of it if the link has an anchor.
func TestNothingLinksOutsideRepository(t *testing.T) {
	files, err := repoFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no files found in the repository")
	}
	forbidden := []byte("../" + "shared") // split so that this file passes its own test
	headings := map[string]map[string]bool{}
	for _, name := range files {
		text, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
		if err != nil {
			if os.IsNotExist(err) { // tracked but deleted in the work tree
				continue
			}
			t.Fatal(err)
		}
		for i, line := range bytes.Split(text, []byte("\n")) {
			if bytes.Contains(line, forbidden) {
				t.Errorf("%s:%d refers to %s, which is outside the repository: %s", name, i+1, forbidden, bytes.TrimSpace(line))
			}
		}
		if strings.HasSuffix(name, ".md") {
			for _, l := range markdownLinks(string(text)) {
				if err := checkLink(repoRoot, name, l.target, headings); err != nil {
					t.Errorf("%s:%d: link %q: %v", name, l.line, l.target, err)
				}
			}
		}
	}
}

// repoFiles lists the repository's files, slash-separated and relative to
// root: the files git tracks, or where git or its metadata is absent (an
// unpacked archive), those walkFiles finds.
func repoFiles(root string) ([]string, error) {
	if files, err := gitFiles(root); err == nil {
		return files, nil
	}
	return walkFiles(root)
}

// gitFiles lists the files git tracks under root.
func gitFiles(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// walkFiles lists every file under root but those of .git/ and of the build
// and run outputs, bin/ and runs/.
func walkFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || rel == "bin" || rel == "runs" {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		return nil
	})
	return files, err
}

type mdLink struct {
	line   int
	target string
}

var (
	linkRE       = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRE   = regexp.MustCompile("`[^`]*`")
	headingRE    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	schemeLinkRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// markdownLinks returns the inline links and images of a Markdown text,
// outside fenced code blocks and code spans.
func markdownLinks(text string) []mdLink {
	var links []mdLink
	for i, line := range proseLines(text) {
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			links = append(links, mdLink{i + 1, m[1]})
		}
	}
	return links
}

// proseLines returns the lines of a Markdown text with those of fenced code
// blocks (fences included) blanked, so that indices stay line numbers - 1.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	inFence := false
	for i, line := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		if fence || inFence {
			lines[i] = ""
		}
		if fence {
			inFence = !inFence
		}
	}
	return lines
}

// checkLink checks one link of the Markdown file from (relative to the
// repository root, root): web and mail links pass; a relative one must stay in the
// repository, name a file or directory that exists and, with an anchor into
// a Markdown file, one of its headings. headings caches the anchors of the
// files read.
func checkLink(root, from, target string, headings map[string]map[string]bool) error {
	if schemeLinkRE.MatchString(target) {
		return nil
	}
	file, anchor, _ := strings.Cut(target, "#")
	dest := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			return fmt.Errorf("an absolute path")
		}
		dest = path.Join(path.Dir(from), file)
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return fmt.Errorf("outside the repository")
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
			return fmt.Errorf("no such file %s", dest)
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return nil
	}
	anchors, ok := headings[dest]
	if !ok {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dest)))
		if err != nil {
			return err
		}
		anchors = headingAnchors(string(text))
		headings[dest] = anchors
	}
	if !anchors[anchor] {
		return fmt.Errorf("%s has no heading with the anchor #%s", dest, anchor)
	}
	return nil
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown
// text: the heading in lower case, without punctuation, spaces as hyphens,
// and -1, -2, … after repeats.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// TestWalkFiles checks the listing used where git is absent: it holds every
// file git tracks (where git is present) and nothing of .git/.
func TestWalkFiles(t *testing.T) {
	walked, err := walkFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range walked {
		if strings.HasPrefix(f, ".git/") {
			t.Errorf("walkFiles lists %s", f)
		}
		have[f] = true
	}
	want := []string{"README.md", "configs/links_test.go"}
	if tracked, err := gitFiles(repoRoot); err == nil {
		want = tracked
	}
	for _, f := range want {
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(f))); err == nil && !have[f] {
			t.Errorf("walkFiles misses %s", f)
		}
	}
}

func TestCheckLink(t *testing.T) {
	docs := map[string]string{ // Markdown texts, as a temporary repository
		"README.md":      "# Title\n\n## The `hour` preset\n\n## Notes\n\n## Notes\n\n```\n# not a heading\n```\n",
		"docs/rules.md":  "# Rules\n\n## 4.1 `keyland`: Keyland 1921\n",
		"docs/img/a.png": "",
	}
	root := t.TempDir()
	for name, text := range docs {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		from, target string
		bad          string // a part of the error, or "" for none
	}{
		{"README.md", "https://example.com/x", ""},
		{"README.md", "docs/rules.md", ""},
		{"README.md", "docs/", ""},
		{"docs/rules.md", "img/a.png", ""},
		{"docs/rules.md", "../README.md#the-hour-preset", ""},
		{"docs/rules.md", "../README.md#notes-1", ""},
		{"README.md", "#notes", ""},
		{"README.md", "docs/rules.md#41-keyland-keyland-1921", ""},
		{"docs/rules.md", "../../elsewhere/rules.md", "outside the repository"},
		{"README.md", "../x.md", "outside the repository"},
		{"README.md", "/etc/passwd", "absolute path"},
		{"README.md", "docs/nosuch.md", "no such file"},
		{"README.md", "#notes-2", "no heading"},
		{"README.md", "#not-a-heading", "no heading"},
		{"docs/rules.md", "../README.md#training", "no heading"},
	}
	for _, tt := range tests {
		err := checkLink(root, tt.from, tt.target, map[string]map[string]bool{})
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("%s → %s: %v", tt.from, tt.target, err)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("%s → %s: error %v, want one saying %q", tt.from, tt.target, err, tt.bad)
		}
	}
}

// TestVariantsCiteRules checks the description and source of every built-in
// variant: each keeps its whole line (a " #" in a plain YAML value starts a
// comment, which once cut cyningstan's to "Walker's leaflet"), and the source
// names a section of docs/rules.md that exists.
func TestVariantsCiteRules(t *testing.T) {
	rules, err := os.ReadFile(filepath.Join(repoRoot, "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#{2,3} (\d+(?:\.\d+)?)\.? `).FindAllStringSubmatch(string(rules), -1) {
		sections[m[1]] = true
	}
	cite := regexp.MustCompile(`docs/rules\.md §(\d+(?:\.\d+)?)`)
	for _, name := range configs.VariantNames() {
		r := configs.MustVariant(name)
		text, err := configs.VariantYAML(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []struct{ key, value string }{{"description", r.Description}, {"source", r.Source}} {
			m := regexp.MustCompile(`(?m)^` + field.key + `: *(.*)$`).FindStringSubmatch(string(text))
			if m == nil {
				t.Errorf("%s: no %s line", name, field.key)
				continue
			}
			if line := strings.Trim(m[1], `"`); line != field.value {
				t.Errorf("%s: %s reads as %q, the line says %q", name, field.key, field.value, line)
			}
		}
		m := cite.FindStringSubmatch(r.Source)
		if m == nil {
			t.Errorf("%s: source %q names no section of docs/rules.md", name, r.Source)
		} else if !sections[m[1]] {
			t.Errorf("%s: source %q names §%s, which docs/rules.md lacks", name, r.Source, m[1])
		}
	}
}

// TestREADMEIsShort: the README is a user's guide of under 300 lines
// (issue 39); measurements and run logs belong in docs/.
func TestREADMEIsShort(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n >= 300 {
		t.Errorf("README.md has %d lines; keep it under 300 (move detail to docs/)", n)
	}
}

// TestRecordFilesNamed: every file of docs/experiments/records that a
// tracked file names (as records/NAME or docs/experiments/records/NAME,
// braces expanded) is there, so that a record renamed, compressed or
// removed leaves no reference behind.
func TestRecordFilesNamed(t *testing.T) {
	files, err := repoFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`records/([A-Za-z0-9_.{},*-]+)`)
	braces := regexp.MustCompile(`\{([^{}]*)\}`)
	dir := filepath.Join(repoRoot, "docs", "experiments", "records")
	checked := 0
	for _, name := range files {
		if strings.HasPrefix(name, "docs/experiments/records/") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
		if err != nil || bytes.IndexByte(text, 0) >= 0 { // deleted in the work tree, or binary
			continue
		}
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range named.FindAllStringSubmatch(line, -1) {
				rec := strings.TrimRight(m[1], ".,")
				if strings.Contains(rec, "NAME") { // a placeholder
					continue
				}
				recs := []string{rec}
				if b := braces.FindStringSubmatchIndex(rec); b != nil {
					recs = nil
					for _, alt := range strings.Split(rec[b[2]:b[3]], ",") {
						recs = append(recs, rec[:b[0]]+alt+rec[b[1]:])
					}
				}
				for _, r := range recs {
					checked++
					if matches, _ := filepath.Glob(filepath.Join(dir, r)); len(matches) == 0 {
						t.Errorf("%s:%d names records/%s, which docs/experiments/records lacks", name, i+1, r)
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d names of records checked; the pattern misses them", checked)
	}
}

var (
	// A path of a Markdown file cited with a section: "docs/x.md §3",
	// "`docs/x.md` §3, §4" or "[x](x.md) §3".
	pathCiteRE = regexp.MustCompile("([A-Za-z0-9_./-]+\\.md)[`)]?\\s+(§\\s?\\d+(?:\\.\\d+)*(?:,\\s*§\\s?\\d+(?:\\.\\d+)*)*)")
	// A Markdown link whose text cites a section: "[strength §16](…)".
	linkCiteRE    = regexp.MustCompile(`\[([^\]]*§[^\]]*)\]\(([^)\s]+)\)`)
	sectionNumRE  = regexp.MustCompile(`§\s?(\d+(?:\.\d+)*)`)
	numberedHead  = regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?\s`)
	citableSuffix = []string{".md", ".go", ".yaml", ".txt", "Makefile"}
)

// TestSectionCitations: a numbered section of a Markdown file cited in any
// tracked text file, as a path and §N (from the repository's root or from
// the citing file) or as a link whose text names §N, is a heading of that
// file; and a link to one with an anchor lands on a section it names. So a
// section moved to another file (strength §1 to §33 went to
// docs/experiments/2026-11-strength.md) leaves no citation behind.
func TestSectionCitations(t *testing.T) {
	files, err := repoFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]map[string]string{} // file → section number → anchor
	sectionsOf := func(name string) (map[string]string, bool) {
		if s, ok := sections[name]; ok {
			return s, s != nil
		}
		text, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
		if err != nil {
			sections[name] = nil
			return nil, false
		}
		s := map[string]string{}
		for _, line := range proseLines(string(text)) {
			if m := headingRE.FindStringSubmatch(line); m != nil {
				if n := numberedHead.FindStringSubmatch(m[1]); n != nil {
					for a := range headingAnchors(line) {
						s[n[1]] = a
					}
				}
			}
		}
		sections[name] = s
		return s, true
	}
	// resolve finds the Markdown file that the file from cites as p.
	resolve := func(from, p string) (string, bool) {
		for _, c := range []string{path.Join(path.Dir(from), p), path.Clean(p)} {
			if _, ok := sectionsOf(c); ok {
				return c, true
			}
		}
		return "", false
	}
	cited := 0
	for _, name := range files {
		if strings.HasPrefix(name, "docs/experiments/records/") || !slices.ContainsFunc(citableSuffix, func(s string) bool { return strings.HasSuffix(name, s) }) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
		if err != nil {
			continue
		}
		text := string(data)
		if strings.HasSuffix(name, ".md") {
			text = strings.Join(proseLines(text), "\n")
		}
		lineOf := func(i int) int { return strings.Count(text[:i], "\n") + 1 }
		for _, m := range pathCiteRE.FindAllStringSubmatchIndex(text, -1) {
			p, nums := text[m[2]:m[3]], sectionNumRE.FindAllStringSubmatch(text[m[4]:m[5]], -1)
			dest, ok := resolve(name, p)
			if !ok {
				continue // not a file of the repository (a name in prose)
			}
			s, _ := sectionsOf(dest)
			for _, n := range nums {
				cited++
				if _, ok := s[n[1]]; !ok {
					t.Errorf("%s:%d cites %s §%s, which %s lacks", name, lineOf(m[0]), p, n[1], dest)
				}
			}
		}
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		for _, m := range linkCiteRE.FindAllStringSubmatchIndex(text, -1) {
			label, target := text[m[2]:m[3]], text[m[4]:m[5]]
			file, anchor, _ := strings.Cut(target, "#")
			if schemeLinkRE.MatchString(target) || file != "" && !strings.HasSuffix(file, ".md") {
				continue
			}
			dest := name
			if file != "" {
				dest = path.Join(path.Dir(name), file)
			}
			s, ok := sectionsOf(dest)
			if !ok {
				continue // TestNothingLinksOutsideRepository reports it
			}
			lands := anchor == ""
			for _, n := range sectionNumRE.FindAllStringSubmatch(label, -1) {
				cited++
				a, ok := s[n[1]]
				if !ok {
					t.Errorf("%s:%d: link [%s](%s) cites §%s, which %s lacks", name, lineOf(m[0]), label, target, n[1], dest)
				}
				lands = lands || a == anchor
			}
			if !lands {
				t.Errorf("%s:%d: link [%s](%s) lands on none of the sections it cites", name, lineOf(m[0]), label, target)
			}
		}
	}
	if cited < 50 {
		t.Errorf("only %d section citations checked; the patterns miss them", cited)
	}
}

// TestDocsIndex: docs/README.md, linked from the README, lists every file
// of docs/ by topic.
func TestDocsIndex(t *testing.T) {
	index, err := os.ReadFile(filepath.Join(repoRoot, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range markdownLinks(string(index)) {
		file, _, _ := strings.Cut(l.target, "#")
		linked[path.Clean(file)] = true
	}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(docs) < 10 {
		t.Fatalf("%d docs, %v", len(docs), err)
	}
	want := []string{"experiments/README.md"}
	for _, d := range docs {
		if name := filepath.Base(d); name != "README.md" {
			want = append(want, name)
		}
	}
	for _, name := range want {
		if !linked[name] {
			t.Errorf("docs/README.md does not list %s", name)
		}
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "](docs/README.md)") {
		t.Errorf("README.md does not link docs/README.md")
	}
}

// maxMarkdownLine bounds a line of a Markdown file, in characters: a longer
// one, a table row too, says too much at once (issue 69).
const maxMarkdownLine = 600

// TestMarkdownLinesShort: no line of a tracked Markdown file, prose, table
// or code, is over maxMarkdownLine characters.
func TestMarkdownLinesShort(t *testing.T) {
	files, err := repoFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(text), "\n") {
			if n := utf8.RuneCountInString(line); n > maxMarkdownLine {
				t.Errorf("%s:%d has %d characters; split it into lines of at most %d (a table: shorter cells, the detail below it)", name, i+1, n, maxMarkdownLine)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d Markdown files checked", checked)
	}
}
