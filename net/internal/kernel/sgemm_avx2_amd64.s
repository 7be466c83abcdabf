//go:build goexperiment.simd && amd64

#include "textflag.h"

// func kernel4x16asm(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[64]float32)
//
// The 256-bit kernel (AVX2 and FMA): out[r*16+j] = sum_{p<k} S_r[p] * V[p][j]
// for r < 4, j < 16, where S_r[p] is the float at s_r + p*step and V[p] the
// 16 floats at v + p*64. Each scalar is broadcast straight from memory and
// the eight accumulators Y0-Y7 stay in place (VFMADD231PS); the archsimd
// version moves every accumulator each step. k >= 1.
TEXT ·kernel4x16asm(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ s0+8(FP), AX
	MOVQ s1+16(FP), BX
	MOVQ s2+24(FP), DX
	MOVQ s3+32(FP), SI
	MOVQ step+40(FP), R8
	MOVQ v+48(FP), DI
	MOVQ out+56(FP), R9
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

loop:
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9
	VBROADCASTSS (AX), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VBROADCASTSS (BX), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VBROADCASTSS (DX), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VBROADCASTSS (SI), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ $64, DI
	ADDQ R8, AX
	ADDQ R8, BX
	ADDQ R8, DX
	ADDQ R8, SI
	DECQ CX
	JNZ  loop

	VMOVUPS Y0, (R9)
	VMOVUPS Y1, 32(R9)
	VMOVUPS Y2, 64(R9)
	VMOVUPS Y3, 96(R9)
	VMOVUPS Y4, 128(R9)
	VMOVUPS Y5, 160(R9)
	VMOVUPS Y6, 192(R9)
	VMOVUPS Y7, 224(R9)
	VZEROUPPER
	RET
