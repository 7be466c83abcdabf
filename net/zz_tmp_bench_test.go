package net

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestZZMeasure(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	blocks, _ := strconv.Atoi(os.Getenv("ZZB"))
	ch, _ := strconv.Atoi(os.Getenv("ZZC"))
	cfg := DefaultConfig(8)
	cfg.Blocks, cfg.Channels = blocks, ch
	topo := GridBoard(6, 7)
	for _, b := range []int{1, 16, 64, 256} {
		for _, th := range []int{1, 2} {
			r, err := MeasureInference(topo, cfg, b, th, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%dx%d inference batch %d threads %d: %.0f pos/s %.1f GFLOP/s (%.2f MFLOP/pos)", blocks, ch, b, th, r.PosPerSec, r.GFLOPs, r.FLOPsPerPos/1e6)
		}
	}
	r, err := MeasureTraining(topo, cfg, 256, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%dx%d training batch 256: %.0f pos/s %.1f GFLOP/s", blocks, ch, r.PosPerSec, r.GFLOPs)
}
