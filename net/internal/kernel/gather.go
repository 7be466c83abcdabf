package kernel

// Gather describes the neighbour gather of a graph convolution over rows
// laid out [position][point] with C channels: row r of the output is the
// concatenation of the C-vectors of the nine points Tab[(r%Points)*9:][:9]
// of its position (zeros where the entry is -1).
type Gather struct {
	Tab       []int32 // [Points*9]
	Points    int
	C         int
	AppendOne bool // add a constant-1 column (the bias input of the next matmul)
}

// Width is the length of an output row: 9*C, plus one with AppendOne.
func (s Gather) Width() int {
	if s.AppendOne {
		return 9*s.C + 1
	}
	return 9 * s.C
}

// Forward writes out[r] = [x[src(r,0)], ..., x[src(r,8)], (1)] for the
// rows of whole positions (rows is a multiple of Points).
func (s Gather) Forward(x, out []float32, rows int) {
	P, C, W := s.Points, s.C, s.Width()
	for base := 0; base+P <= rows; base += P {
		xb := x[base*C : (base+P)*C]
		ob := out[base*W : (base+P)*W]
		for p := 0; p < P; p++ {
			o := ob[p*W : (p+1)*W]
			GatherRow(o[:9*C], xb, s.Tab[p*9:p*9+9], C)
			if s.AppendOne {
				o[9*C] = 1
			}
		}
	}
}

// Backward accumulates dx[src(r,k)] += dout[r][k] (the adjoint of
// Forward); dx must be zeroed by the caller.
func (s Gather) Backward(dout, dx []float32, rows int) {
	P, C, W := s.Points, s.C, s.Width()
	for r := 0; r < rows; r++ {
		base := r - r%P
		g := dout[r*W : (r+1)*W]
		for k, src := range s.Tab[(r%P)*9 : (r%P)*9+9] {
			if src >= 0 {
				VecAdd(dx[(base+int(src))*C:(base+int(src)+1)*C], g[k*C:(k+1)*C])
			}
		}
	}
}
