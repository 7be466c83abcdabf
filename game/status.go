package game

import "fmt"

// Outcome is the state of a game: still going, won by a side, or drawn.
type Outcome uint8

// The outcomes.
const (
	Ongoing Outcome = iota
	SouthWins
	NorthWins
	Draw
)

// WinFor is the outcome of a game won by s.
func WinFor(s Side) Outcome { return SouthWins + Outcome(s) }

// Winner returns the side that won, and false for a draw or an unfinished game.
func (o Outcome) Winner() (Side, bool) {
	switch o {
	case SouthWins:
		return South, true
	case NorthWins:
		return North, true
	}
	return 0, false
}

// Result returns the result in record notation: 1-0, 0-1, 1/2-1/2 or *.
func (o Outcome) Result() string {
	return [...]string{"*", "1-0", "0-1", "1/2-1/2"}[o]
}

// ResultScore returns side s's score in a game with the given result in
// record notation, and false if the game is unfinished or the result
// unknown.
func ResultScore(result string, s Side) (float64, bool) {
	o, err := parseResult(result)
	if err != nil || o == Ongoing {
		return 0, false
	}
	return o.ScoreFor(s), true
}

// parseResult returns the outcome of a result in record notation (Result).
func parseResult(result string) (Outcome, error) {
	for o := Ongoing; o <= Draw; o++ {
		if o.Result() == result {
			return o, nil
		}
	}
	return Ongoing, fmt.Errorf("Result %q: want 1-0, 0-1, 1/2-1/2 or *", result)
}

// ScoreFor returns the game's score for side s: 1 win, 0.5 draw, 0 loss.
func (o Outcome) ScoreFor(s Side) float64 {
	if w, ok := o.Winner(); ok {
		if w == s {
			return 1
		}
		return 0
	}
	return 0.5
}

// Reason is why a game ended.
type Reason uint8

// The reasons a game ends.
const (
	NotOver        Reason = iota
	NoPieces              // the loser has no pieces left
	KingCaptured          // the loser's king was captured
	LoneKing              // the loser was reduced to its lone king
	Immobilised           // the loser's only piece outranks the winner's and cannot move
	NoMove                // the loser had no legal move
	KingsOnly             // only the kings are left
	TwoPasses             // both sides passed in a row
	NoCaptureLimit        // too many plies without a capture
	MaxPlies              // the game reached its maximum length
	Adjudicated           // decided outside the rules (resignation, time)
)

var reasonText = [...]string{"not over", "no pieces left", "king captured", "lone king", "immobilised", "no legal move",
	"kings only", "two passes", "no capture limit", "maximum length", "adjudicated"}

// Key returns a short stable name for the reason, such as "king-captured".
func (r Reason) Key() string {
	return [...]string{"", "no-pieces", "king-captured", "lone-king", "immobilised", "no-move",
		"kings-only", "two-passes", "no-capture", "max-plies", "adjudicated"}[r]
}

func (r Reason) String() string { return reasonText[r] }

// ParseReason returns the reason with the given Key.
func ParseReason(key string) (Reason, error) {
	for r := NotOver; r <= Adjudicated; r++ {
		if r.Key() == key {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown termination %q", key)
}

// Status is the result of a game and why.
type Status struct {
	Outcome Outcome
	Reason  Reason
	Limit   int // the limit reached, for NoCaptureLimit and MaxPlies
}

// Over reports whether the game has ended.
func (s Status) Over() bool { return s.Outcome != Ongoing }

func (s Status) String() string {
	var who string
	switch s.Outcome {
	case Ongoing:
		return "in progress"
	case SouthWins:
		who = "south wins"
	case NorthWins:
		who = "north wins"
	default:
		who = "draw"
	}
	switch s.Reason {
	case NoCaptureLimit:
		return fmt.Sprintf("%s: no capture in %d plies", who, s.Limit)
	case MaxPlies:
		return fmt.Sprintf("%s: %d plies played", who, s.Limit)
	}
	return who + ": " + s.Reason.String()
}
