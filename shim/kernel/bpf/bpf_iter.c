// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/bpf/bpf_iter.c, rewritten for ksim: the map element iterator
 * (a bpf_iter link on a map, read through its fd) as a driver,
 * ksim_bpf_map_iter() (ksim/bpf.h).  What the kernel does and we keep:
 * the target's private data of the map's iter_seq_info, initialised with
 * the map (init_seq_private) and finalised at the end; bpf_seq_read()'s
 * loop over the seq_operations (start, show, next ... stop), a read()
 * stopping when its buffer is full (here: after @chunk objects) and the
 * next read() calling start() again at the saved position; the program
 * run for each object by show() through bpf_iter_get_info() and
 * bpf_iter_run_prog() (RCU, migration disabled; a return of 1 asks to
 * retry the object: -EAGAIN from show()), and once more with no object
 * from stop() at the end (in_stop: the done_stop rule, at most once).
 * What we leave out: fds, links, the seq_file text buffer (programs here
 * write nothing), sleepable programs.
 */
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <ksim/bpf.h>

#define MAX_ITER_OBJECTS	1000000	/* bpf_seq_read(): objects one read() may show */

/* struct bpf_iter_priv_data: ours, then the target's private data */
struct ksim_bpf_iter {
	int (*fn)(struct bpf_iter__bpf_map_elem *ctx, void *arg);
	void *arg;
	u64 session_id, seq_num;
	bool done_stop;
	u8 target_private[] __aligned(8);
};

static u64 session_id;

struct bpf_prog *bpf_iter_get_info(struct bpf_iter_meta *meta, bool in_stop)
{
	struct seq_file *seq = meta->seq;
	struct ksim_bpf_iter *it;

	if (!seq->ksim_bpf_iter)	/* the kernel: seq->file->f_op != &bpf_iter_fops */
		return NULL;
	it = container_of(seq->private, struct ksim_bpf_iter, target_private);
	if (in_stop && it->done_stop)
		return NULL;
	meta->session_id = it->session_id;
	meta->seq_num = it->seq_num;
	return (struct bpf_prog *)it;
}

int bpf_iter_run_prog(struct bpf_prog *prog, void *ctx)
{
	struct ksim_bpf_iter *it = (struct ksim_bpf_iter *)prog;
	int ret;

	rcu_read_lock();
	migrate_disable();
	ret = it->fn(ctx, it->arg);
	migrate_enable();
	rcu_read_unlock();
	/* 0: okay; 1: retry the same object */
	return ret == 0 ? 0 : -EAGAIN;
}

/*
 * One read(): bpf_seq_read()'s object loop (kernel/bpf/bpf_iter.c); the
 * seq_num counts shown objects, skipped ones (show() > 0) do not count.
 * 0 with *@done set at the end of the map, else the error.
 */
static int seq_read_once(struct seq_file *seq, struct ksim_bpf_iter *it, loff_t *index, u32 chunk,
			 bool *done)
{
	const struct seq_operations *op = seq->ksim_bpf_iter->seq_ops;
	u32 num_objs = 0, shown = 0;
	void *p;
	int err = 0;

	p = op->start(seq, index);
	if (!p)
		goto stop;
	if (IS_ERR(p)) {
		op->stop(seq, p);
		return PTR_ERR(p);
	}
	err = op->show(seq, p);
	if (err < 0) {
		op->stop(seq, p);
		return err;
	}
	shown += !err;
	for (;;) {
		loff_t pos = *index;

		num_objs++;
		p = op->next(seq, p, index);
		if (pos == *index)	/* "buggy seq_file .next function ... did not update position index" */
			(*index)++;
		if (IS_ERR_OR_NULL(p))
			break;
		it->seq_num++;		/* got a valid next object */
		if (shown >= chunk)	/* the read() buffer is full */
			break;
		if (num_objs >= MAX_ITER_OBJECTS)
			break;
		err = op->show(seq, p);
		if (err > 0) {
			it->seq_num--;	/* skipped: the next object reuses the number */
		} else if (err < 0) {
			/* kept for the next read() (the kernel returns what it has) */
			if (!shown) {
				op->stop(seq, p);
				return err;
			}
			break;
		} else {
			shown++;
		}
	}
stop:
	if (IS_ERR(p)) {
		op->stop(seq, NULL);
		return PTR_ERR(p);
	}
	op->stop(seq, p);	/* with p NULL the program runs once more (in_stop) */
	if (!p) {
		it->done_stop = true;
		*done = true;
	}
	return 0;
}

int ksim_bpf_map_iter(struct bpf_map *map, int (*fn)(struct bpf_iter__bpf_map_elem *ctx, void *arg),
		      void *arg, u32 chunk)
{
	const struct bpf_iter_seq_info *info = map->ops->iter_seq_info;
	struct bpf_iter_aux_info aux = { .map = map };
	struct seq_file seq = { .out = stderr };
	struct ksim_bpf_iter *it;
	loff_t index = 0;
	bool done = false;
	int err;

	if (!info)
		return -ENOTSUPP;
	/* prepare_seq_file(): the private data is kzalloc'd with the link's */
	it = kzalloc(sizeof(*it) + info->seq_priv_size, GFP_KERNEL);
	if (!it)
		return -ENOMEM;
	it->fn = fn;
	it->arg = arg;
	it->session_id = ++session_id;
	if (info->init_seq_private) {
		err = info->init_seq_private(it->target_private, &aux);
		if (err) {
			kfree(it);
			return err;
		}
	}
	seq.private = it->target_private;
	seq.ksim_bpf_iter = info;
	/*
	 * read() until the end; a read that failed with -EAGAIN is read again,
	 * as a reader would.  An iterator still going after four times the
	 * map's capacity does not end: -ELOOP (the kernel has no such limit).
	 */
	for (int again = 0; !done && again < 1000;) {
		err = seq_read_once(&seq, it, &index, chunk ?: 1, &done);
		if (err && err != -EAGAIN)
			break;
		again = err ? again + 1 : 0;
		if (it->seq_num > 4 * (u64)map->max_entries + 64) {
			err = -ELOOP;
			break;
		}
	}
	if (info->fini_seq_private)
		info->fini_seq_private(it->target_private);
	kfree(it);
	return err;
}
