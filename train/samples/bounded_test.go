package samples

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/klauspost/compress/zstd"
)

// TestReadBounded: a shard that decompresses to more than the bound (a few
// kilobytes of zstd can hold gigabytes of zeros) is refused once it passes
// the bound, and so is a file larger than the bound, before it is read.
func TestReadBounded(t *testing.T) {
	const limit = 1 << 20
	r := configs.MustVariant("keyland")
	dir := t.TempDir()
	var bomb bytes.Buffer
	zw, err := zstd.NewWriter(&bomb, zstd.WithWindowSize(1<<17)) // a window the decoder takes
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(make([]byte, 4*limit))
	zw.Close()
	path := filepath.Join(dir, "bomb.shard")
	if err := os.WriteFile(path, bomb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := read(path, r, limit); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "more than 1048576 bytes decompressed") {
		t.Errorf("a shard of %d compressed bytes holding %d: %v", bomb.Len(), 4*limit, err)
	}
	big := filepath.Join(dir, "big.shard")
	if err := os.WriteFile(big, make([]byte, limit+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := read(big, r, limit); err == nil || !strings.Contains(err.Error(), "more than a sample shard may have (1 MiB)") {
		t.Errorf("a shard file of %d bytes: %v", limit+1, err)
	}
	// Within the bound, a good shard reads.
	good := filepath.Join(dir, "good.shard")
	p := r.Start()
	if err := Write(good, r, Header{}, []Sample{{Position: p, Result: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, ss, err := read(good, r, limit); err != nil || len(ss) != 1 {
		t.Errorf("a good shard: %d samples, %v", len(ss), err)
	}
}
