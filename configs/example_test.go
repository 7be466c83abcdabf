package configs_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/configs"
)

func ExampleVariant() {
	r, err := configs.Variant("daablot,no_return=true")
	if err != nil {
		fmt.Println(err)
		return
	}
	start := r.Start()
	fmt.Println(r.Name, r.Board.Points(), r.NoReturn, start.CountTurns())
	_, err = configs.Variant("daablot,no_return=maybe")
	fmt.Println(err)
	// Output:
	// daablot,no_return=true 41 true 4
	// variant: no_return (line 3): cannot unmarshal !!str `maybe` into bool
}

func ExampleParseBook() {
	r, _ := configs.Variant("frostviken")
	book := `# two openings
sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s # the start
sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS x
`
	_, err := configs.ParseBook(r, "mine.txt", []byte(book))
	fmt.Println(err)
	// Output:
	// mine.txt:3: FEN "sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS x": side: "x": want s (South) or n (North)
}
