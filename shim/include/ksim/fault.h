/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fault-injection engine (shim/lib/fault-inject.c): one engine for every
 * allocation the shim serves (kmalloc, kmem_cache, vmalloc, bpf_mem_alloc,
 * page tables in mm-sim, ...) and every lock acquisition that may fail in the
 * kernel, deterministic from a seed.
 *
 * Sites come in classes, armed separately (class=alloc, the default;
 * class=lock; class=all):
 *   - alloc: every allocation asks ksim_should_fail(site, gfp);
 *   - lock: every acquisition the kernel lets fail asks
 *     ksim_should_fail_lock(site): res_spin_lock() (asm/rqspinlock.h: the
 *     caller gets -EDEADLK) and, on trees without rqspinlock, a BPF program
 *     re-entering a hash map whose bucket lock this CPU holds
 *     (shim/kernel/bpf/syscall.c: the kernel's map_locked check refuses it);
 *   - signal: a pending signal, as another thread's kill() could leave it:
 *     signal_pending() and fatal_signal_pending() ask
 *     ksim_should_fail_signal(site) and may say yes, and the killable and
 *     interruptible lock acquisitions (down_*_killable(),
 *     mutex_lock_killable(), mmap_write_lock_killable(), ...) may return
 *     -EINTR without the lock.  The kernel's fast path takes an uncontended
 *     lock without looking at signals; the callers cannot tell, as the lock
 *     may always be contended, so every such site may fail.  Not part of
 *     class=all, whose runs expect -ENOMEM-style failures only.
 * A site is the kernel function that called the allocator or lock (its
 * __func__) plus file:line.  The engine can:
 *   - fail the Nth eligible allocation (nth=N; counting from 1), or every
 *     allocation from the Nth on (nth=N,times=-1);
 *   - fail each eligible allocation with probability p (p=0.01), drawn from
 *     its own PRNG seeded with seed=S, so a run replays exactly;
 *   - restrict eligibility to sites whose function name is in a list
 *     (sites=mas_alloc_nodes,dup_mmap) and/or to non-blocking allocations
 *     (nowait=1, the allocations the kernel may fail without retrying);
 *   - stop after `times` failures (default 1 for nth, unlimited for p).
 * nth and p count the eligible sites of the armed classes together.
 * It counts, per site, how often it was reached and how often it failed;
 * ksim_fault_report() prints that table with each site's class.
 *
 * Configuration: the API below, or the run's --fault SPEC (ksim/run.h),
 * whose default is the environment variable KSIM_FAULT with the same keys,
 * comma-separated: KSIM_FAULT="p=0.02,seed=7,sites=kmalloc_node".  The run
 * convention reads it once and arms it around every test, after a stress
 * program's setup, and in every op of a fuzz replay; tests may override it.
 */
#ifndef _KSIM_FAULT_H
#define _KSIM_FAULT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define KSIM_FAULT_MAX_SITES	16

/* Site classes (bits of ksim_fault_config.classes; 0 means alloc). */
#define KSIM_FAULT_ALLOC	0x1
#define KSIM_FAULT_LOCK		0x2
#define KSIM_FAULT_SIGNAL	0x4	/* armed by name only: not in "all" */
#define KSIM_FAULT_ALL		(KSIM_FAULT_ALLOC | KSIM_FAULT_LOCK)

struct ksim_fault_config {
	unsigned long nth;		/* 0: off */
	double probability;		/* 0: off */
	long times;			/* max failures; -1 unlimited; 0: default */
	uint64_t seed;
	/* No seed= in the spec: take the run's seed (ksim_seed()) when armed. */
	bool seed_from_run;
	bool nowait_only;		/* only allocations that cannot sleep */
	/*
	 * Reclaim pressure: every allocation that cannot sleep (no
	 * __GFP_DIRECT_RECLAIM) fails, as it can in the kernel without any
	 * injection when free memory is low; nth, p and times then count only
	 * the others.
	 */
	bool pressure;
	unsigned int classes;		/* KSIM_FAULT_*; 0: KSIM_FAULT_ALLOC */
	int nr_sites;
	char sites[KSIM_FAULT_MAX_SITES][64];
};

struct ksim_fault_site_stats {
	const char *func;
	const char *file;
	int line;
	unsigned long reached;
	unsigned long failed;
	unsigned int cls;		/* KSIM_FAULT_ALLOC or KSIM_FAULT_LOCK */
};

/*
 * Arm the engine (replaces the previous configuration, zeroes counters).
 * A config with seed_from_run takes the run's seed now, so the order in
 * which a command line sets --seed and --fault does not matter.
 */
void ksim_fault_set(const struct ksim_fault_config *cfg);
/*
 * Parse "nth=3,p=0.1,seed=1,sites=a,b,times=2,nowait=1,pressure=1,class=lock"; -1 on
 * bad input.  class= takes alloc, lock, all or alloc+lock.  A bare
 * probability ("0.01") is short for p=0.01.  Without seed= the config
 * draws from the run's seed (seed_from_run).
 */
int ksim_fault_parse(const char *spec, struct ksim_fault_config *cfg, char *err, size_t errlen);
/* Disarm and clear counters and the site table. */
void ksim_fault_reset(void);
/* Keep the configuration, clear only the counters (for sweeps). */
void ksim_fault_clear_counts(void);
/*
 * Count sites even while disarmed (arming the engine always counts them).
 * Off by default: the disarmed allocation path then takes no lock.
 */
void ksim_fault_track(bool on);
/* Suspend/resume injection for the calling code path (nestable). */
void ksim_fault_suspend(void);
void ksim_fault_resume(void);

/* The hook the allocators call.  gfp_flags as unsigned to avoid gfp.h here. */
bool ksim_should_fail(const char *func, const char *file, int line, unsigned int gfp_flags);
/* The hook of lock acquisitions that may fail (class lock). */
bool ksim_should_fail_lock(const char *func, const char *file, int line);
bool ksim_should_fail_signal(const char *func, const char *file, int line);
/* True when the lock class is armed: callers may skip work otherwise. */
bool ksim_fault_lock_armed(void);
/* Failures injected into the class(es) since the last set/clear. */
unsigned long ksim_fault_class_failures(unsigned int classes);

/* Eligible allocations seen and failures injected since the last set/clear. */
unsigned long ksim_fault_calls(void);
unsigned long ksim_fault_failures(void);
bool ksim_fault_armed(void);
/* Distinct sites reached / failed since the last set/clear. */
unsigned int ksim_fault_sites_reached(void);
unsigned int ksim_fault_sites_failed(void);
void ksim_fault_report(FILE *out);
/*
 * The injections since ksim_fault_record_reset(), across arms: how many,
 * and a hash of where (each one's eligible-call number and site line).  Two
 * runs that inject at the same allocations have the same digest; the run
 * convention prints it (ksim/run.h) so a replay can be compared.
 */
unsigned long ksim_fault_record(uint64_t *digest);
void ksim_fault_record_reset(void);
/* Snapshot of the site table; returns the number of sites (<= max). */
unsigned int ksim_fault_sites(struct ksim_fault_site_stats *out, unsigned int max);

#endif
