/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seq_file: what BPF map iterators (shim/kernel/bpf/bpf_iter.c) and
 * map_seq_show_elem use.  The seq_* output functions print to the FILE the
 * struct wraps.
 */
#ifndef _LINUX_SEQ_FILE_H
#define _LINUX_SEQ_FILE_H

#include <stdio.h>
#include <linux/types.h>

struct bpf_iter_seq_info;
struct seq_file {
	FILE *out;
	void *private;
	/* a bpf_iter's seq_file (shim/kernel/bpf/bpf_iter.c): its map's iterator */
	const struct bpf_iter_seq_info *ksim_bpf_iter;
	/*
	 * A map file's seq_file (ksim_bpf_map_seq_show_elem(), seq_show.c):
	 * with no BTF, btf_type_seq_show() prints ksim_key_size bytes of the
	 * object that is ksim_key, ksim_value_size bytes of any other.
	 */
	const void *ksim_key;
	u32 ksim_key_size, ksim_value_size;
};
struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};
#define seq_printf(m, fmt, ...)	fprintf((m)->out, fmt, ##__VA_ARGS__)
#define seq_puts(m, s)		fputs((s), (m)->out)
#define seq_putc(m, c)		fputc((c), (m)->out)

#endif
