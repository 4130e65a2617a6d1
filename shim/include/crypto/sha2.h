/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256, as far as kernel/bpf/arraymap.c (7.2+) names it: an array map's
 * map_get_hash() hashes its frozen contents for BPF_OBJ_GET_INFO_BY_FD's
 * info.hash (exclusive maps of signed programs).  ksim's bpf(2) refuses
 * info.hash (shim/kernel/bpf/sys_bpf.c), so sha256() is never reached: it
 * is a BUG, not a hash.
 */
#ifndef _CRYPTO_SHA2_H
#define _CRYPTO_SHA2_H

#include <linux/types.h>
#include <linux/bug.h>

#define SHA256_DIGEST_SIZE	32
#define SHA256_BLOCK_SIZE	64

static inline void sha256(const u8 *data, size_t len, u8 out[SHA256_DIGEST_SIZE])
{
	BUG();
}

#endif
