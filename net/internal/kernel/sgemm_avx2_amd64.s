//go:build goexperiment.simd && amd64

#include "textflag.h"

// func kernel6x16asm(k int, s0, s1, s2, s3, s4, s5 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[96]float32)
//
// The 256-bit kernel (AVX2 and FMA): out[r*16+j] = sum_{p<k} S_r[p] * V[p][j]
// for r < 6, j < 16, where S_r[p] is the float at s_r + p*step and V[p] the
// 16 floats at v + p*64. Each scalar is broadcast straight from memory and
// the twelve accumulators Y0-Y11 stay in place (VFMADD231PS): twelve
// independent chains cover the multiply-add's latency, which the eight of
// a 4-row tile do not. k >= 1.
TEXT ·kernel6x16asm(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ s0+8(FP), AX
	MOVQ s1+16(FP), BX
	MOVQ s2+24(FP), DX
	MOVQ s3+32(FP), SI
	MOVQ s4+40(FP), R10
	MOVQ s5+48(FP), R11
	MOVQ step+56(FP), R8
	MOVQ v+64(FP), DI
	MOVQ out+72(FP), R9
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loop:
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	VBROADCASTSS (AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (BX), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (DX), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (SI), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (R10), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (R11), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $64, DI
	ADDQ R8, AX
	ADDQ R8, BX
	ADDQ R8, DX
	ADDQ R8, SI
	ADDQ R8, R10
	ADDQ R8, R11
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
	VMOVUPS Y8, 256(R9)
	VMOVUPS Y9, 288(R9)
	VMOVUPS Y10, 320(R9)
	VMOVUPS Y11, 352(R9)
	VZEROUPPER
	RET
