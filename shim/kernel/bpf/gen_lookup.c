// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined map lookups (ksim/bpf.h: ksim_bpf_prog_gen_lookup()): what the
 * verifier does with a program's bpf_map_lookup_elem() call when the map
 * has ops->map_gen_lookup (kernel/bpf/verifier.c, do_misc_fixups()), and a
 * small interpreter of our own for the instructions it gets back.
 *
 * The interpreter knows exactly the instructions hashtab.c's generators
 * write, and refuses anything else (a generator that starts emitting
 * something new is reported with its opcode, not run wrongly):
 *   BPF_ALU64 | BPF_ADD | BPF_K      dst += imm
 *   BPF_ALU64 | BPF_MOV | BPF_K/X    dst = imm / src
 *   BPF_ALU64 | BPF_MOV | BPF_X, off BPF_ADDR_PERCPU
 *                                    dst = this_cpu_ptr((void __percpu *)src)
 *   BPF_JMP | BPF_JA                 pc += off
 *   BPF_JMP | BPF_JEQ/BPF_JNE | BPF_K  if (dst ==/!= imm) pc += off
 *   BPF_JMP | BPF_CALL               r0 = fn(r1, r2), fn = __bpf_call_base + imm
 *   BPF_JMP | BPF_EXIT               end
 *   BPF_LDX | BPF_MEM | B/H/W/DW     dst = *(size *)(src + off)
 *   BPF_ST | BPF_MEM | B/H/W/DW      *(size *)(dst + off) = imm
 * Every field an instruction does not use must be 0, as the verifier
 * demands (BPF_MOV with off 8/16/32 is a sign-extending move, BPF_ADD with
 * off 1 does not exist...).  Falling off the end of the instructions is the
 * normal end: the verifier patched them in for the call, and the program
 * goes on with r0.
 *
 * Calls: each generator calls a lookup function of the map_lookup_elem
 * type (hashtab.c checks it with BUILD_BUG_ON(!__same_type(...))), so the
 * call is made through that type with r1 and r2; r1-r5 are then garbage
 * (the verifier marks them unreadable after a call), here a poison value.
 *
 * Per-CPU pointers (linux/percpu.h): the shim's __percpu pointer is CPU
 * 0's copy with the copies at a stride stored before it, so "this CPU's
 * offset" depends on the allocation; the move gives this_cpu_ptr() of the
 * pointer, which is what x86-64's JIT gives (an add of this_cpu_off).
 * Memory accesses are plain C loads and stores, so ASan checks them.
 */
#include <stdio.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <ksim/bpf.h>

/* The kernel's (kernel/bpf/core.c): only its address matters. */
noinline u64 __bpf_call_base(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return 0;
}

#define KSIM_BPF_POISON	0x6b73696d706f6973ULL	/* r1-r5 after a call */
#define KSIM_BPF_STEPS	64			/* the generators write no loop */

static __thread char interp_err[160];	/* per thread: stress programs run lookups in parallel */

const char *ksim_bpf_interp_error(void)
{
	return interp_err;
}

#define REFUSE(fmt, ...) do {							\
	snprintf(interp_err, sizeof(interp_err), "insn %d (code 0x%02x dst r%u src r%u off %d imm %d): " fmt, \
		 pc, in->code, in->dst_reg, in->src_reg, in->off, in->imm, ##__VA_ARGS__); \
	return -EINVAL;								\
} while (0)

static int mem_size(u8 code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B:	return 1;
	case BPF_H:	return 2;
	case BPF_W:	return 4;
	case BPF_DW:	return 8;
	}
	return 0;
}

/* An address no map memory has: NULL plus an offset (a missed NULL check). */
static bool bad_addr(u64 addr)
{
	return addr < 4096;
}

int ksim_bpf_interp(const struct bpf_insn *insn, int cnt, u64 regs[MAX_BPF_REG])
{
	int pc = 0, steps = 0;

	interp_err[0] = 0;
	while (pc < cnt) {
		const struct bpf_insn *in = &insn[pc];
		u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		u64 *dst = &regs[in->dst_reg], addr;
		int size;

		if (++steps > KSIM_BPF_STEPS)
			REFUSE("more than %d steps", KSIM_BPF_STEPS);
		if (in->dst_reg >= MAX_BPF_REG || in->src_reg >= MAX_BPF_REG)
			REFUSE("no such register");
		switch (cls) {
		case BPF_ALU64:
			if (op == BPF_ADD && BPF_SRC(in->code) == BPF_K && !in->src_reg && !in->off) {
				*dst += (u64)(s64)in->imm;
			} else if (op == BPF_MOV && BPF_SRC(in->code) == BPF_K && !in->src_reg && !in->off) {
				*dst = (u64)(s64)in->imm;
			} else if (op == BPF_MOV && BPF_SRC(in->code) == BPF_X && !in->imm && !in->off) {
				*dst = regs[in->src_reg];
			} else if (op == BPF_MOV && BPF_SRC(in->code) == BPF_X && !in->imm &&
				   in->off == BPF_ADDR_PERCPU) {
				if (bad_addr(regs[in->src_reg]))
					REFUSE("per-CPU address of 0x%llx", (unsigned long long)regs[in->src_reg]);
				*dst = (u64)(uintptr_t)this_cpu_ptr((void __percpu *)(uintptr_t)regs[in->src_reg]);
			} else {
				REFUSE("unknown ALU64 instruction");
			}
			pc++;
			break;
		case BPF_JMP:
			if (op == BPF_JA && BPF_SRC(in->code) == BPF_K && !in->dst_reg && !in->src_reg &&
			    !in->imm) {
				pc += 1 + in->off;
			} else if ((op == BPF_JEQ || op == BPF_JNE) && BPF_SRC(in->code) == BPF_K &&
				   !in->src_reg) {
				bool eq = *dst == (u64)(s64)in->imm;

				pc += 1 + ((eq == (op == BPF_JEQ)) ? in->off : 0);
			} else if (op == BPF_CALL && BPF_SRC(in->code) == BPF_K && !in->dst_reg &&
				   !in->src_reg && !in->off) {
				void *(*fn)(struct bpf_map *, void *) =
					(void *)((char *)(void *)__bpf_call_base + in->imm);

				regs[BPF_REG_0] = (u64)(uintptr_t)fn((struct bpf_map *)(uintptr_t)regs[BPF_REG_1],
								     (void *)(uintptr_t)regs[BPF_REG_2]);
				for (int r = BPF_REG_1; r <= BPF_REG_5; r++)
					regs[r] = KSIM_BPF_POISON;
				pc++;
			} else if (op == BPF_EXIT && BPF_SRC(in->code) == BPF_K && !in->dst_reg &&
				   !in->src_reg && !in->off && !in->imm) {
				return 0;
			} else {
				REFUSE("unknown JMP instruction");
			}
			if (pc < 0 || pc > cnt)
				REFUSE("jump out of the instructions (to %d of %d)", pc, cnt);
			break;
		case BPF_LDX:
			size = mem_size(in->code);
			if (BPF_MODE(in->code) != BPF_MEM || in->imm)
				REFUSE("unknown LDX instruction");
			addr = regs[in->src_reg] + (s64)in->off;
			if (bad_addr(regs[in->src_reg]))
				REFUSE("load from 0x%llx", (unsigned long long)addr);
			{
				u64 v = 0;

				/* little-endian: the low bytes of v */
				memcpy(&v, (void *)(uintptr_t)addr, size);
				*dst = v;
			}
			pc++;
			break;
		case BPF_ST:
			size = mem_size(in->code);
			if (BPF_MODE(in->code) != BPF_MEM || in->src_reg)
				REFUSE("unknown ST instruction");
			addr = *dst + (s64)in->off;
			if (bad_addr(*dst))
				REFUSE("store to 0x%llx", (unsigned long long)addr);
			{
				u64 v = (u64)(s64)in->imm;

				memcpy((void *)(uintptr_t)addr, &v, size);
			}
			pc++;
			break;
		default:
			REFUSE("unknown instruction class");
		}
	}
	return 0;
}

/* The verifier's buffer for one patch (INSN_BUF_SIZE in include/linux/bpf_verifier.h). */
#define KSIM_INSN_BUF_SIZE	32

int ksim_bpf_prog_gen_lookup(struct bpf_map *map, void *key, void **ret)
{
	struct bpf_insn buf[KSIM_INSN_BUF_SIZE];
	u64 regs[MAX_BPF_REG];
	int cnt, err;

	if (!map->ops->map_gen_lookup)
		return -ENOTSUPP;
	memset(buf, 0, sizeof(buf));
	cnt = map->ops->map_gen_lookup(map, buf);
	if (cnt == -EOPNOTSUPP)	/* the verifier keeps the helper call */
		return cnt;
	if (cnt <= 0 || cnt >= KSIM_INSN_BUF_SIZE) {	/* "bpf verifier is misconfigured" */
		snprintf(interp_err, sizeof(interp_err), "map_gen_lookup() returned %d", cnt);
		return -EFAULT;
	}
	for (int r = 0; r < MAX_BPF_REG; r++)
		regs[r] = KSIM_BPF_POISON;
	regs[BPF_REG_1] = (u64)(uintptr_t)map;
	regs[BPF_REG_2] = (u64)(uintptr_t)key;
	/* a program runs with migration disabled (bpf_prog_run_pin_on_cpu()) */
	migrate_disable();
	err = ksim_bpf_interp(buf, cnt, regs);
	migrate_enable();
	*ret = (void *)(uintptr_t)regs[BPF_REG_0];
	return err;
}
