package game_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

func ExampleParseFEN() {
	r := configs.MustVariant("keyland")
	p, err := game.ParseFEN(r, "ssssss/sssss/ssssss/sssss/ssssss/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS s")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.SideToMove(), p.CountTurns())
	_, err = game.ParseFEN(r, "sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s")
	fmt.Println(err)
	// Output:
	// south 15
	// FEN "sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s": rows: 9 rows (a 5×5 board?), but variant keyland has 13 (a 6×7 board)
}

func ExamplePosition_ApplyTurn() {
	p := configs.MustVariant("keyland").Start()
	for _, turn := range []string{"i5-i7", "c9-c7", "i7xi11"} {
		if err := p.ApplyTurn(turn); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println(p.FEN())
	// Output:
	// move "i7xi11": i11 is occupied
	// ssssss/sssss/ssssss/sssss/s1ssss/p4/ks2SK/4P/SSSS1S/SSSSS/SSSSSS/SSSSS/SSSSSS s - 2 2
}

func ExamplePosition_Decisions() {
	r := configs.MustVariant("dablot")
	// South's soldier on a1 must capture twice: two decisions, one turn.
	p, _ := game.ParseFEN(r, "5k/5/6/5/6/5/s5/5/6/5/s5/5/S4K s")
	for !p.Status().Over() && p.SideToMove() == game.South {
		ds := p.Decisions(nil)
		fmt.Println(p.DecisionString(ds[0]), len(ds))
		p.Apply(ds[0])
	}
	fmt.Println(p.SideToMove(), "to move; north has", p.Occupied(game.North).Count(), "piece")
	// Output:
	// a1xa5 1
	// a5xa9 1
	// north to move; north has 1 piece
}
