/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction-building macros map_gen_lookup() uses (the maps inline
 * their lookup into programs).  The encodings are the kernel's, field for
 * field: shim/kernel/bpf/gen_lookup.c runs what the generators write.
 */
#ifndef __LINUX_FILTER_H__
#define __LINUX_FILTER_H__

#include <linux/bpf.h>

#define BPF_RAW_INSN(CODE, DST, SRC, OFF, IMM)				\
	((struct bpf_insn) { .code = CODE, .dst_reg = DST, .src_reg = SRC, .off = OFF, .imm = IMM })
#define BPF_ALU64_IMM(OP, DST, IMM)	BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
#define BPF_ALU64_REG(OP, DST, SRC)	BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_X, DST, SRC, 0, 0)
#define BPF_ALU32_IMM(OP, DST, IMM)	BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
#define BPF_MOV64_REG(DST, SRC)		BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DST, SRC, 0, 0)
#define BPF_MOV64_IMM(DST, IMM)		BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, DST, 0, 0, IMM)
#define BPF_ADDR_PERCPU	(-1)
/* The marker is in off, as the kernel's (imm stays 0). */
#define BPF_MOV64_PERCPU_REG(DST, SRC)	BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DST, SRC, BPF_ADDR_PERCPU, 0)
#define BPF_LDX_MEM(SIZE, DST, SRC, OFF) BPF_RAW_INSN(BPF_LDX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_STX_MEM(SIZE, DST, SRC, OFF) BPF_RAW_INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_ST_MEM(SIZE, DST, OFF, IMM)	BPF_RAW_INSN(BPF_ST | BPF_SIZE(SIZE) | BPF_MEM, DST, 0, OFF, IMM)
#define BPF_JMP_IMM(OP, DST, IMM, OFF)	BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP_REG(OP, DST, SRC, OFF)	BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP_A(OFF)			BPF_RAW_INSN(BPF_JMP | BPF_JA, 0, 0, OFF, 0)
#define BPF_EXIT_INSN()			BPF_RAW_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/*
 * The call's immediate is the function's distance from __bpf_call_base
 * (shim/kernel/bpf/gen_lookup.c), as in the kernel: the callees are in the
 * same executable, so it fits in 32 bits.
 */
u64 __bpf_call_base(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);
#define BPF_CALL_IMM(x)	((void *)(x) - (void *)__bpf_call_base)
#define BPF_EMIT_CALL(FUNC)		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_CALL_IMM(FUNC))
#define BPF_CAST_CALL(x)	(x)

#endif
