package game

// DecisionsByCount lists the decisions that RandomDecision can return, by
// walking its counting path for every index, so tests can check that it
// draws from exactly the set Decisions lists.
func (p *Position) DecisionsByCount() []Decision {
	if special, ok := p.specialDecisions(nil); ok {
		return special
	}
	var ms moveSets
	p.collect(&ms)
	var out []Decision
	for k := range ms.total {
		out = append(out, ms.nth(k))
	}
	if len(out) == 0 && p.rules.NoMove == NoMovePasses {
		out = append(out, Pass)
	}
	return out
}

// ReadRecordsWithin and ReadPGNWithin are ReadRecords and ReadPGN with a
// smaller bound than MaxRecordsBytes, so tests need not make 256 MB.
var (
	ReadRecordsWithin = readRecords
	ReadPGNWithin     = readPGN
)
