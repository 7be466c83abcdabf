package train_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/train"
)

// A config with a misspelt key is refused, and the error names the key.
func ExampleParseConfig() {
	_, err := train.ParseConfig([]byte("name: mine\nselfplay:\n  gamez: 64\n"))
	fmt.Println(err)
	// Output:
	// training config: unmarshal errors:
	//   line 3: field gamez not found in type train.SelfPlayConfig
}
