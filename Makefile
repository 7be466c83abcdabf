# dablot-zero — build, test, benchmark, train.
SHELL   := /bin/bash
GO      ?= go
BIN     ?= bin/dablot
# VARIANT: the variant of make train (default dablot) and bench-playouts
# (default keyland).
VARIANT ?=
PRESET  ?= overnight
# Tests that the README promises; CI runs exactly `make test`.
TESTFLAGS ?= -count=1 -timeout 15m
# The network's matrix kernel uses Go 1.26's simd/archsimd (amd64) when built
# with this experiment; without it a plain pure-Go path is used. Both are
# tested; binaries and benchmarks use the fast one.
FAST    ?= GOEXPERIMENT=simd

.PHONY: build test vet fmt-check bench bench-playouts train strength curve bars-hour bar-8h fuzz clean

# -buildvcs=auto stamps the git commit into the binary (and so into every
# model file it writes), even where GOFLAGS turns stamping off.
build:
	$(FAST) $(GO) build -buildvcs=auto -o $(BIN) ./cmd/dablot

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# The plain (pure Go, CGO_ENABLED=0) build must always work. The tests run
# with the fast kernel, as the binaries do (the plain one's gonum matrix
# products were most of the training tests' time), and the network's
# packages again with the plain kernel. The tests' output goes through
# internal/testlog: plain go test's lines, and every skipped test with its
# reason (the browser test without Chromium).
test: fmt-check vet
	CGO_ENABLED=0 $(GO) build ./...
	$(FAST) $(GO) vet ./net/...
	set -o pipefail; $(FAST) $(GO) test -json $(TESTFLAGS) ./... | $(GO) run ./internal/testlog
	$(GO) test $(TESTFLAGS) ./net/...

# Speed benchmarks; -short skips the analyses written as benchmarks
# (BenchmarkFallBehind), which take most of an hour.
bench:
	$(FAST) $(GO) test -short -run '^$$' -bench . -benchmem ./...

bench-playouts: build
	$(BIN) analyse bench playouts --variant $(or $(VARIANT),keyland) --threads 1 --seconds 10

# Short fuzzing of every parser (each target FUZZTIME long).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./game -run '^$$' -fuzz '^FuzzParseFEN$$' -fuzztime $(FUZZTIME)
	$(GO) test ./game -run '^$$' -fuzz '^FuzzParseTurn$$' -fuzztime $(FUZZTIME)
	$(GO) test ./game -run '^$$' -fuzz '^FuzzParseVariant$$' -fuzztime $(FUZZTIME)
	$(GO) test ./game -run '^$$' -fuzz '^FuzzReadPGN$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mcts -run '^$$' -fuzz '^FuzzParseSpec$$' -fuzztime $(FUZZTIME)
	$(GO) test ./net/safetensors -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./train/samples -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./train -run '^$$' -fuzz '^FuzzParseConfig$$' -fuzztime $(FUZZTIME)
	$(GO) test ./net/model -run '^$$' -fuzz '^FuzzDecodeModel$$' -fuzztime $(FUZZTIME)
	$(GO) test ./configs -run '^$$' -fuzz '^FuzzVariantSpec$$' -fuzztime $(FUZZTIME)

# Trains the built-in preset PRESET (configs/train, embedded in the binary;
# a path to a preset file works too) in runs/<variant>-<preset>: after
# Ctrl-C the same make train continues that run. FRESH=1 starts a new one
# (the old run is moved aside to runs/<variant>-<preset>-<time>, never
# deleted). HOURS=H replaces the stop: with H hours of training in all.
train: build
	$(BIN) train --config $(PRESET) --variant $(or $(VARIANT),dablot)$(if $(HOURS), --hours $(HOURS))$(if $(filter 1 yes true,$(FRESH)), --fresh)

# Strength at equal time (dablot ladder): MODEL against alphabeta:ms=MS, and
# with VS=FILE against a second model, MS milliseconds a decision each, from
# the variant's opening book; prints the match and appends a row per match
# to docs/ladder.tsv. 100 games at 100 ms take 20 to 27 minutes on 2 cores.
MS    ?= 100
GAMES ?= 100
MODEL ?= models/dablot.dbm
strength: build
	$(BIN) ladder $(MODEL) --ms $(MS) --games $(GAMES) $(if $(VS),--vs $(VS))

# The learning curve (dablot ladder --curve, docs/ladder.md): the snapshots of
# the run RUN (RUN/snapshots, kept by the overnight preset at 1, 2, 4, 8 and 16
# CPU hours) or of a folder of them, each against the one before it,
# alphabeta:ms=MS and classical:ms=MS, CURVE_GAMES games a match (SPRT=elo0,elo1
# stops a match early). Rows go to docs/curve.tsv, records to curves/NAME (NAME:
# RUN's last element), resumed game by game; then the plot,
# docs/img/curve-VARIANT.png. Five snapshots are 14 matches, 700 games: on dablot
# at 100 ms, one game a core, about 5 hours on 2 cores. It runs BIN as it is, without building: make
# build first, or give BIN=FILE, a binary pinned for the whole curve.
RUN ?=
CURVE_GAMES ?= 50
SPRT ?=
CURVE_NAME = $(notdir $(patsubst %/,%,$(RUN)))
curve:
	$(if $(RUN),,$(error make curve RUN=DIR: the run directory, or a folder of snapshots))
	@test -x $(BIN) || { echo "make curve: no binary $(BIN): make build first, or give BIN=FILE"; exit 2; }
	$(BIN) ladder --curve $(RUN) --ms $(MS) --games $(CURVE_GAMES)$(if $(SPRT), --sprt $(SPRT)) --out curves/$(CURVE_NAME) --resume
	$(BIN) report --curve docs/curve.tsv --snapshots $(RUN) --ms $(MS)

# The bars of the strength issue (models/README.md). Each match prints its
# W/D/L, score with a 95 % interval and how the games ended, and keeps its
# game records in BARS.
#   bars-hour: the models of an hour from scratch (HOUR_dablot,
#     HOUR_winther, HOUR_frostviken: the one-hour models, kept in
#     models/ablations/ once a longer-trained model ships), 200 simulations a
#     move against alphabeta:depth=2, 100 games each from the variant's
#     opening book, each opening once per colour (bar: 90 %); about 10
#     minutes a variant.
#   bar-8h: the models in MODELS (default models/, where the 8-hour chains'
#     finals ship), the ladder at 1 s a move against alphabeta:ms=1000 (40
#     games) and at 100 ms against alphabeta:ms=100 (100 games) on dablot
#     and winther (bar: 50 %), rows in docs/ladder.tsv; and keyland never
#     loses: 40 games against alphabeta:ms=1000 (0 losses) and 40 against
#     uct:playouts=1000 at 200 simulations (90 %). A dablot game at 1 s
#     takes 4 to 7 minutes (session 50, one core), so the 1 s matches take
#     hours each and bar-8h spans sessions.
#   Each match continues from its records in BARS when they are there
#   (--resume), so a bar-8h stopped by the end of a session goes on where it
#   stopped; move BARS aside to measure new models.
#   The models play as the shipped player (docs/player.md), with the
#   guard and the tables, at 200 simulations or in the ladder at time; OPTS
#   adds settings to both, such as OPTS=guard=0,eg=0 for the network's
#   search alone.
MODELS ?= models
HOUR_dablot ?= models/ablations/dablot-1cpuh-own.dbm
HOUR_winther ?= models/winther.dbm
HOUR_frostviken ?= models/frostviken.dbm
BARS ?= bars
OPTS ?=
# KIND: the search of the bars' players, the shipped player's (docs/player.md)
KIND ?= gumbel
comma := ,
LADDER_PLAYER = $(if $(OPTS),--player $(KIND):$(OPTS))
bars-hour: build
	mkdir -p $(BARS)
	$(foreach v,dablot winther frostviken,$(BIN) arena --variant $(v) --a "$(KIND):model=$(HOUR_$(v)),sims=200$(if $(OPTS),$(comma)$(OPTS))" --b alphabeta:depth=2 --games 100 --book configs/books/$(v).txt --threads 2 --seed 11 --out $(BARS)/hour-$(v)-ab2.jsonl --resume &&) true

bar-8h: build
	mkdir -p $(BARS)
	for v in dablot winther; do \
	  $(BIN) ladder $(MODELS)/$$v.dbm --ms 1000 --games 40 $(LADDER_PLAYER) --out $(BARS)/8h-$$v-ab1000.jsonl --resume || exit 1; \
	  $(BIN) ladder $(MODELS)/$$v.dbm --ms 100 --games 100 $(LADDER_PLAYER) --out $(BARS)/8h-$$v-ab100.jsonl --resume || exit 1; \
	done
	$(BIN) ladder $(MODELS)/keyland.dbm --ms 1000 --games 40 $(LADDER_PLAYER) --out $(BARS)/8h-keyland-ab1000.jsonl --resume
	$(BIN) arena --variant keyland --a "$(KIND):model=$(MODELS)/keyland.dbm,sims=200$(if $(OPTS),$(comma)$(OPTS))" --b uct:playouts=1000 --games 40 --book configs/books/keyland.txt --threads 2 --seed 11 --out $(BARS)/8h-keyland-uct1000.jsonl --resume

clean:
	rm -rf bin
