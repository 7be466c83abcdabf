//go:build goexperiment.simd && amd64

#include "textflag.h"

// ZERO16 clears the sixteen accumulators Z0-Z15 of the 8-row kernels;
// STORE16 writes them to the 256 floats at R9.
#define ZERO16 \
	VXORPS Z0, Z0, Z0; \
	VXORPS Z1, Z1, Z1; \
	VXORPS Z2, Z2, Z2; \
	VXORPS Z3, Z3, Z3; \
	VXORPS Z4, Z4, Z4; \
	VXORPS Z5, Z5, Z5; \
	VXORPS Z6, Z6, Z6; \
	VXORPS Z7, Z7, Z7; \
	VXORPS Z8, Z8, Z8; \
	VXORPS Z9, Z9, Z9; \
	VXORPS Z10, Z10, Z10; \
	VXORPS Z11, Z11, Z11; \
	VXORPS Z12, Z12, Z12; \
	VXORPS Z13, Z13, Z13; \
	VXORPS Z14, Z14, Z14; \
	VXORPS Z15, Z15, Z15

#define STORE16 \
	VMOVUPS Z0, (R9); \
	VMOVUPS Z1, 64(R9); \
	VMOVUPS Z2, 128(R9); \
	VMOVUPS Z3, 192(R9); \
	VMOVUPS Z4, 256(R9); \
	VMOVUPS Z5, 320(R9); \
	VMOVUPS Z6, 384(R9); \
	VMOVUPS Z7, 448(R9); \
	VMOVUPS Z8, 512(R9); \
	VMOVUPS Z9, 576(R9); \
	VMOVUPS Z10, 640(R9); \
	VMOVUPS Z11, 704(R9); \
	VMOVUPS Z12, 768(R9); \
	VMOVUPS Z13, 832(R9); \
	VMOVUPS Z14, 896(R9); \
	VMOVUPS Z15, 960(R9)

// ROWS8 is the body of one depth step of the 8-row kernels: V's two
// vectors are in Z16 and Z17, and the eight broadcast scalars in Z18-Z25.
#define ROWS8 \
	VFMADD231PS Z16, Z18, Z0; \
	VFMADD231PS Z17, Z18, Z1; \
	VFMADD231PS Z16, Z19, Z2; \
	VFMADD231PS Z17, Z19, Z3; \
	VFMADD231PS Z16, Z20, Z4; \
	VFMADD231PS Z17, Z20, Z5; \
	VFMADD231PS Z16, Z21, Z6; \
	VFMADD231PS Z17, Z21, Z7; \
	VFMADD231PS Z16, Z22, Z8; \
	VFMADD231PS Z17, Z22, Z9; \
	VFMADD231PS Z16, Z23, Z10; \
	VFMADD231PS Z17, Z23, Z11; \
	VFMADD231PS Z16, Z24, Z12; \
	VFMADD231PS Z17, Z24, Z13; \
	VFMADD231PS Z16, Z25, Z14; \
	VFMADD231PS Z17, Z25, Z15

// func kernel4x32asm(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[128]float32)
//
// out[r*32+j] = sum_{p<k} S_r[p] * V[p][j] for r < 4, j < 32, where S_r[p]
// is the float at s_r + p*step and V[p] the 32 floats at v + p*128. Each
// scalar is broadcast straight from memory (a load-port operation) and the
// eight accumulators stay in place (VFMADD231PS), which the archsimd
// version could not express without register moves. k >= 1.
TEXT ·kernel4x32asm(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ s0+8(FP), AX
	MOVQ s1+16(FP), BX
	MOVQ s2+24(FP), DX
	MOVQ s3+32(FP), SI
	MOVQ step+40(FP), R8
	MOVQ v+48(FP), DI
	MOVQ out+56(FP), R9
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	TESTQ CX, CX
	JLE   done

loop:
	VMOVUPS      (DI), Z8
	VMOVUPS      64(DI), Z9
	VBROADCASTSS (AX), Z10
	VBROADCASTSS (BX), Z11
	VBROADCASTSS (DX), Z12
	VBROADCASTSS (SI), Z13
	VFMADD231PS  Z8, Z10, Z0
	VFMADD231PS  Z9, Z10, Z1
	VFMADD231PS  Z8, Z11, Z2
	VFMADD231PS  Z9, Z11, Z3
	VFMADD231PS  Z8, Z12, Z4
	VFMADD231PS  Z9, Z12, Z5
	VFMADD231PS  Z8, Z13, Z6
	VFMADD231PS  Z9, Z13, Z7
	ADDQ         $128, DI
	ADDQ         R8, AX
	ADDQ         R8, BX
	ADDQ         R8, DX
	ADDQ         R8, SI
	DECQ         CX
	JNZ          loop

done:
	VMOVUPS Z0, (R9)
	VMOVUPS Z1, 64(R9)
	VMOVUPS Z2, 128(R9)
	VMOVUPS Z3, 192(R9)
	VMOVUPS Z4, 256(R9)
	VMOVUPS Z5, 320(R9)
	VMOVUPS Z6, 384(R9)
	VMOVUPS Z7, 448(R9)
	VZEROUPPER
	RET

// func kernel8x32asm(k int, s unsafe.Pointer, rs, step uintptr, v unsafe.Pointer, out *[256]float32)
//
// kernel4x32asm for 8 rows with equally spaced pointers: S_r[p] is the
// float at s + r*rs + p*step. Sixteen accumulators hide the latency of the
// fused multiply-adds better than eight. k >= 1.
TEXT ·kernel8x32asm(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ s+8(FP), AX
	MOVQ rs+16(FP), R10
	MOVQ step+24(FP), R8
	MOVQ v+32(FP), DI
	MOVQ out+40(FP), R9
	LEAQ (R10)(R10*2), R11 // 3 rs
	LEAQ (AX)(R10*4), BX   // row 4
	ZERO16
	TESTQ CX, CX
	JLE   done8

loop8:
	VMOVUPS      (DI), Z16
	VMOVUPS      64(DI), Z17
	VBROADCASTSS (AX), Z18
	VBROADCASTSS (AX)(R10*1), Z19
	VBROADCASTSS (AX)(R10*2), Z20
	VBROADCASTSS (AX)(R11*1), Z21
	VBROADCASTSS (BX), Z22
	VBROADCASTSS (BX)(R10*1), Z23
	VBROADCASTSS (BX)(R10*2), Z24
	VBROADCASTSS (BX)(R11*1), Z25
	ROWS8
	ADDQ         $128, DI
	ADDQ         R8, AX
	ADDQ         R8, BX
	DECQ         CX
	JNZ          loop8

done8:
	STORE16
	VZEROUPPER
	RET

// func kernelConv8x32asm(segs, c int, rows *[72]unsafe.Pointer, v unsafe.Pointer, out *[256]float32)
//
// The implicit-gather product of a graph convolution for 8 output rows
// and 32 columns: out[r*32+j] = sum_{s<segs} sum_{p<c} rows[s*8+r][p] *
// V[s*c+p][j], where V[i] is the 32 floats at v + i*128. Each of the 8
// rows reads its own source row in every segment (a neighbour's channels,
// or zeros), so the gathered matrix is never written. c >= 1, segs >= 1.
TEXT ·kernelConv8x32asm(SB), NOSPLIT, $0-40
	MOVQ rows+16(FP), R8
	MOVQ v+24(FP), DI
	ZERO16

seg:
	MOVQ 0(R8), AX
	MOVQ 8(R8), BX
	MOVQ 16(R8), SI
	MOVQ 24(R8), DX
	MOVQ 32(R8), R10
	MOVQ 40(R8), R11
	MOVQ 48(R8), R12
	MOVQ 56(R8), R13
	MOVQ c+8(FP), R9
	XORQ CX, CX

inner:
	VMOVUPS      (DI), Z16
	VMOVUPS      64(DI), Z17
	VBROADCASTSS (AX)(CX*1), Z18
	VBROADCASTSS (BX)(CX*1), Z19
	VBROADCASTSS (SI)(CX*1), Z20
	VBROADCASTSS (DX)(CX*1), Z21
	VBROADCASTSS (R10)(CX*1), Z22
	VBROADCASTSS (R11)(CX*1), Z23
	VBROADCASTSS (R12)(CX*1), Z24
	VBROADCASTSS (R13)(CX*1), Z25
	ROWS8
	ADDQ         $128, DI
	ADDQ         $4, CX
	DECQ         R9
	JNZ          inner

	ADDQ $64, R8
	DECQ segs+0(FP)
	JNZ  seg

	MOVQ    out+32(FP), R9
	STORE16
	VZEROUPPER
	RET
