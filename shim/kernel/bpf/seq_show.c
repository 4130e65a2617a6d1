// SPDX-License-Identifier: GPL-2.0
/*
 * A map's bpffs file (kernel/bpf/inode.c: map_seq_show() calls
 * ops->map_seq_show_elem() for each key its get_next_key walk gives, the
 * key in a kzalloc'd buffer of key_size bytes), one element at a time:
 * ksim_bpf_map_seq_show_elem() (ksim/bpf.h).
 *
 * The kernel prints keys and values through their BTF types
 * (btf_type_seq_show()); maps here have no BTF, so ours prints the bytes:
 * every byte in memory order as two lowercase hex digits, no separators
 * ("0a0b0c" for the bytes 0x0a 0x0b 0x0c).  It knows the sizes from the
 * seq_file (linux/seq_file.h): key_size bytes for the key object the file
 * is showing, value_size bytes for any other object (a value; per-CPU maps:
 * one CPU's).  A seq_file that is not a map file's prints "<no BTF>".
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <ksim/bpf.h>

void btf_type_seq_show(const struct btf *btf, u32 type_id, void *obj, struct seq_file *m)
{
	u32 size = obj == m->ksim_key ? m->ksim_key_size : m->ksim_value_size;
	const u8 *p = obj;

	if (!size) {
		seq_puts(m, "<no BTF>");
		return;
	}
	for (u32 i = 0; i < size; i++)
		seq_printf(m, "%02x", p[i]);
}

char *ksim_bpf_map_seq_show_elem(struct bpf_map *map, const void *key, u32 key_len)
{
	struct seq_file m = { .ksim_key_size = map->key_size, .ksim_value_size = map->value_size };
	char *text = NULL;
	size_t len = 0;
	void *kkey;

	if (!map->ops->map_seq_show_elem || key_len != map->key_size)
		return NULL;
	kkey = kzalloc(map->key_size, GFP_KERNEL);
	if (!kkey)
		return NULL;
	memcpy(kkey, key, key_len);
	m.ksim_key = kkey;
	m.out = open_memstream(&text, &len);
	if (!m.out) {
		kfree(kkey);
		return NULL;
	}
	map->ops->map_seq_show_elem(map, kkey, &m);
	fclose(m.out);
	kfree(kkey);
	return text;
}
