// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for bit operations, bitmaps and atomics (linux/bitops.h,
 * linux/bitmap.h, linux/find.h with shim/lib/find_bit.c, linux/log2.h,
 * linux/bits.h, linux/atomic.h): set/clear/change/test_and_* bits and their
 * __ variants across words, every find_*_bit() against a naive loop on
 * random bitmaps of awkward sizes (including 0) with garbage past the end,
 * for_each_set_bit vs bitmap_weight, the bitmap helpers, hweight, the
 * fls/ffs family, ilog2 and the power-of-two helpers (constant-folded and
 * runtime forms), GENMASK, and atomic_t/atomic64_t/atomic_long_t, cmpxchg()
 * and xchg() (including a concurrent increment test).
 */
#include <pthread.h>

#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/atomic.h>
#include <linux/slab.h>
#include <ksim/test.h>

/* Keeps the compiler from constant-folding a value. */
static unsigned long opaque(unsigned long v)
{
	unsigned long r;

	__atomic_store_n(&r, v, __ATOMIC_RELAXED);
	return __atomic_load_n(&r, __ATOMIC_RELAXED);
}

KSIM_TEST(set_clear_change_test_bit)
{
	unsigned long map[3] = { 0 };

	set_bit(0, map);
	set_bit(63, map);
	set_bit(64, map);
	set_bit(130, map);
	KSIM_EXPECT_EQ(map[0], 0x8000000000000001UL);
	KSIM_EXPECT_EQ(map[1], 1UL);
	KSIM_EXPECT_EQ(map[2], 1UL << 2);
	KSIM_EXPECT(test_bit(63, map));
	KSIM_EXPECT(test_bit(64, map));
	KSIM_EXPECT(!test_bit(65, map));
	KSIM_EXPECT(test_bit_acquire(130, map));

	clear_bit(63, map);
	KSIM_EXPECT_EQ(map[0], 1UL);
	change_bit(127, map);
	KSIM_EXPECT_EQ(map[1], 0x8000000000000001UL);
	change_bit(127, map);
	KSIM_EXPECT_EQ(map[1], 1UL);

	KSIM_EXPECT(!test_and_set_bit(100, map));
	KSIM_EXPECT(test_and_set_bit(100, map));
	KSIM_EXPECT(test_bit(100, map));
	KSIM_EXPECT(test_and_clear_bit(100, map));
	KSIM_EXPECT(!test_and_clear_bit(100, map));
	KSIM_EXPECT(!test_bit(100, map));
	KSIM_EXPECT(!test_and_change_bit(5, map));
	KSIM_EXPECT(test_and_change_bit(5, map));
	KSIM_EXPECT(!test_bit(5, map));
	KSIM_EXPECT(!test_and_set_bit_lock(70, map));
	KSIM_EXPECT(test_bit(70, map));
	clear_bit_unlock(70, map);
	KSIM_EXPECT(!test_bit(70, map));

	/* non-atomic variants */
	__set_bit(191, map);
	KSIM_EXPECT_EQ(map[2], (1UL << 2) | (1UL << 63));
	__clear_bit(130, map);
	KSIM_EXPECT_EQ(map[2], 1UL << 63);
	__change_bit(128, map);
	KSIM_EXPECT_EQ(map[2], (1UL << 63) | 1);
	KSIM_EXPECT(!__test_and_set_bit(129, map));
	KSIM_EXPECT(__test_and_set_bit(129, map));
	KSIM_EXPECT(__test_and_clear_bit(129, map));
	KSIM_EXPECT(!__test_and_clear_bit(129, map));
	KSIM_EXPECT_EQ(map[0], 1UL);
	KSIM_EXPECT_EQ(map[1], 1UL);
	KSIM_EXPECT_EQ(map[2], (1UL << 63) | 1);
}

/* ---- find_*_bit against naive loops ---- */

#define MAXBITS	1100

/*
 * Reference answers, bit by bit: next_set[i] is the first set bit >= i
 * (size if none), likewise next_zero and next_and; pos[] lists the set
 * bits in order.  Built with a backward pass so the check stays linear.
 */
struct ref {
	unsigned long next_set[MAXBITS + 1];
	unsigned long next_zero[MAXBITS + 1];
	unsigned long next_and[MAXBITS + 1];
	unsigned long pos[MAXBITS];
	unsigned long weight, last;
};

static void build_ref(struct ref *r, const unsigned long *a, const unsigned long *b,
		      unsigned long size)
{
	r->next_set[size] = r->next_zero[size] = r->next_and[size] = size;
	for (unsigned long i = size; i-- > 0;) {
		r->next_set[i] = test_bit(i, a) ? i : r->next_set[i + 1];
		r->next_zero[i] = !test_bit(i, a) ? i : r->next_zero[i + 1];
		r->next_and[i] = test_bit(i, a) && test_bit(i, b) ? i : r->next_and[i + 1];
	}
	r->weight = 0;
	r->last = size;
	for (unsigned long i = 0; i < size; i++)
		if (test_bit(i, a)) {
			r->pos[r->weight++] = i;
			r->last = i;
		}
}

/* Random bits with density @per64/64, over the whole array (past @size too). */
static void random_map(unsigned long *m, unsigned int per64)
{
	struct ksim_rng *rng = ksim_test_rng();

	for (unsigned int w = 0; w < BITS_TO_LONGS(MAXBITS); w++) {
		unsigned long v = 0;

		for (int b = 0; b < 64; b++)
			if (ksim_rng_below(rng, 64) < per64)
				v |= 1UL << b;
		m[w] = v;
	}
}

static unsigned long check_find(const unsigned long *a, const unsigned long *b,
				unsigned long size, struct ref *r)
{
	unsigned long bad = 0, bit, n;

	build_ref(r, a, b, size);
	bad += find_first_bit(a, size) != r->next_set[0];
	bad += find_first_zero_bit(a, size) != r->next_zero[0];
	bad += find_last_bit(a, size) != r->last;
	for (unsigned long off = 0; off <= size + 2; off++) {
		unsigned long i = off < size ? off : size;

		bad += find_next_bit(a, size, off) != r->next_set[i];
		bad += find_next_zero_bit(a, size, off) != r->next_zero[i];
		bad += find_next_and_bit(a, b, size, off) != r->next_and[i];
	}
	for (n = 0; n < r->weight; n++)
		bad += find_nth_bit(a, size, n) != r->pos[n];
	bad += find_nth_bit(a, size, r->weight) != size;
	bad += find_nth_bit(a, size, r->weight + 5) != size;

	bad += bitmap_weight(a, size) != r->weight;
	n = 0;
	for_each_set_bit(bit, a, size)
		bad += n >= r->weight || bit != r->pos[n++];
	bad += n != r->weight;
	n = 0;
	for_each_clear_bit(bit, a, size)
		n++;
	bad += n != size - r->weight;
	bad += bitmap_empty(a, size) != (r->weight == 0);
	bad += bitmap_full(a, size) != (r->weight == size);
	return bad;
}

KSIM_TEST(find_bit_matches_naive)
{
	static const unsigned long fixed[] = {
		0, 1, 2, 63, 64, 65, 100, 127, 128, 129, 191, 192, 200, 1000, MAXBITS,
	};
	static const unsigned int density[] = { 0, 1, 32, 63, 64 };
	unsigned long a[BITS_TO_LONGS(MAXBITS)], b[BITS_TO_LONGS(MAXBITS)];
	struct ksim_rng *rng = ksim_test_rng();
	unsigned long sizes[ARRAY_SIZE(fixed) + 6];
	static struct ref r;
	unsigned long bad = 0;

	memcpy(sizes, fixed, sizeof(fixed));
	for (size_t i = ARRAY_SIZE(fixed); i < ARRAY_SIZE(sizes); i++)
		sizes[i] = ksim_rng_below(rng, MAXBITS + 1);

	for (size_t d = 0; d < ARRAY_SIZE(density); d++) {
		random_map(a, density[d]);
		random_map(b, 32);
		for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
			unsigned long n = check_find(a, b, sizes[s], &r);

			if (n)
				fprintf(stderr, "# find_*_bit: %lu mismatches, size %lu, density %u/64\n",
					n, sizes[s], density[d]);
			bad += n;
		}
	}
	KSIM_EXPECT_EQ(bad, 0);
}

KSIM_TEST(find_bit_edge_cases)
{
	unsigned long m[2] = { 0, 0 };

	/* size 0: nothing is read, everything returns 0 */
	KSIM_EXPECT_EQ(find_first_bit(NULL, 0), 0);
	KSIM_EXPECT_EQ(find_next_bit(NULL, 0, 0), 0);
	KSIM_EXPECT_EQ(find_next_zero_bit(NULL, 0, 5), 0);
	KSIM_EXPECT_EQ(find_last_bit(NULL, 0), 0);
	KSIM_EXPECT_EQ(find_nth_bit(NULL, 0, 0), 0);
	KSIM_EXPECT_EQ(bitmap_weight(NULL, 0), 0);

	KSIM_EXPECT_EQ(find_first_bit(m, 128), 128);
	KSIM_EXPECT_EQ(find_last_bit(m, 128), 128);
	KSIM_EXPECT_EQ(find_first_zero_bit(m, 128), 0);
	m[1] = 1UL << 63;
	KSIM_EXPECT_EQ(find_first_bit(m, 128), 127);
	KSIM_EXPECT_EQ(find_last_bit(m, 128), 127);
	KSIM_EXPECT_EQ(find_first_bit(m, 127), 127);	/* beyond size: not seen */
	KSIM_EXPECT_EQ(find_next_bit(m, 128, 200), 128);
	m[0] = ~0UL;
	m[1] = ~0UL;
	KSIM_EXPECT_EQ(find_first_zero_bit(m, 128), 128);
	KSIM_EXPECT_EQ(find_first_zero_bit(m, 100), 100);
	KSIM_EXPECT_EQ(find_nth_bit(m, 100, 99), 99);
	KSIM_EXPECT_EQ(find_nth_bit(m, 100, 100), 100);
}

KSIM_TEST(bitmap_helpers)
{
	unsigned long a[3], b[3];
	unsigned long *z;

	bitmap_zero(a, 150);
	KSIM_EXPECT(bitmap_empty(a, 150));
	bitmap_set(a, 60, 10);
	KSIM_EXPECT_EQ(bitmap_weight(a, 150), 10);
	KSIM_EXPECT_EQ(find_first_bit(a, 150), 60);
	KSIM_EXPECT_EQ(find_last_bit(a, 150), 69);
	KSIM_EXPECT_EQ(a[0], GENMASK(63, 60));
	KSIM_EXPECT_EQ(a[1], GENMASK(5, 0));
	bitmap_clear(a, 62, 3);
	KSIM_EXPECT_EQ(bitmap_weight(a, 150), 7);
	KSIM_EXPECT_EQ(find_next_zero_bit(a, 150, 60), 62);

	bitmap_copy(b, a, 150);
	KSIM_EXPECT(bitmap_equal(a, b, 150));
	b[2] ^= 1UL << 40;		/* past bit 150: ignored */
	KSIM_EXPECT(bitmap_equal(a, b, 150));
	b[2] ^= 1UL << 3;		/* bit 131 */
	KSIM_EXPECT(!bitmap_equal(a, b, 150));

	bitmap_fill(a, 150);
	KSIM_EXPECT(bitmap_full(a, 150));
	KSIM_EXPECT_EQ(bitmap_weight(a, 150), 150);

	z = bitmap_zalloc(300, GFP_KERNEL);
	KSIM_ASSERT(z);
	KSIM_EXPECT(bitmap_empty(z, 300));
	KSIM_EXPECT_EQ(ksize(z), BITS_TO_LONGS(300) * sizeof(long));
	set_bit(299, z);
	KSIM_EXPECT_EQ(find_first_bit(z, 300), 299);
	bitmap_free(z);

	KSIM_EXPECT_EQ(BITS_TO_LONGS(0), 0);
	KSIM_EXPECT_EQ(BITS_TO_LONGS(1), 1);
	KSIM_EXPECT_EQ(BITS_TO_LONGS(64), 1);
	KSIM_EXPECT_EQ(BITS_TO_LONGS(65), 2);
	KSIM_EXPECT_EQ(BIT_WORD(64), 1);
	KSIM_EXPECT_EQ(BIT_MASK(65), 2);
}

KSIM_TEST(hweight)
{
	struct ksim_rng *rng = ksim_test_rng();

	KSIM_EXPECT_EQ(hweight8(0), 0);
	KSIM_EXPECT_EQ(hweight8(0xff), 8);
	KSIM_EXPECT_EQ(hweight8(0x1ff), 8);		/* only the low byte */
	KSIM_EXPECT_EQ(hweight8(0xa5), 4);
	KSIM_EXPECT_EQ(hweight16(0xffff), 16);
	KSIM_EXPECT_EQ(hweight16(0x1ffff), 16);
	KSIM_EXPECT_EQ(hweight16(0x8001), 2);
	KSIM_EXPECT_EQ(hweight32(0xffffffffU), 32);
	KSIM_EXPECT_EQ(hweight32(0x80000001U), 2);
	KSIM_EXPECT_EQ(hweight64(~0ULL), 64);
	KSIM_EXPECT_EQ(hweight64(0x8000000000000001ULL), 2);
	KSIM_EXPECT_EQ(hweight64(0), 0);
	KSIM_EXPECT_EQ(hweight_long(0xf0f0UL), 8);

	for (int i = 0; i < 1000; i++) {
		u64 v = ksim_rng_next(rng);
		unsigned int n = 0;

		for (int b = 0; b < 64; b++)
			n += (v >> b) & 1;
		KSIM_EXPECT_EQ(hweight64(v), n);
		KSIM_EXPECT_EQ(hweight32((u32)v) + hweight32((u32)(v >> 32)), n);
	}
}

KSIM_TEST(fls_ffs_family)
{
	KSIM_EXPECT_EQ(fls(0), 0);
	KSIM_EXPECT_EQ(fls(1), 1);
	KSIM_EXPECT_EQ(fls(0x10), 5);
	KSIM_EXPECT_EQ(fls(0x80000000U), 32);
	KSIM_EXPECT_EQ(fls(0xffffffffU), 32);
	KSIM_EXPECT_EQ(fls64(0), 0);
	KSIM_EXPECT_EQ(fls64(1), 1);
	KSIM_EXPECT_EQ(fls64(1ULL << 40), 41);
	KSIM_EXPECT_EQ(fls64(1ULL << 63), 64);
	KSIM_EXPECT_EQ(fls_long(1UL << 50), 51);
	KSIM_EXPECT_EQ(__ffs(1), 0);
	KSIM_EXPECT_EQ(__ffs(0x100), 8);
	KSIM_EXPECT_EQ(__ffs(0x180), 7);
	KSIM_EXPECT_EQ(__ffs(1UL << 63), 63);
	KSIM_EXPECT_EQ(__ffs64(1ULL << 33), 33);
	KSIM_EXPECT_EQ(__fls(1), 0);
	KSIM_EXPECT_EQ(__fls(0x180), 8);
	KSIM_EXPECT_EQ(__fls(~0UL), 63);
	KSIM_EXPECT_EQ(ffz(0), 0);
	KSIM_EXPECT_EQ(ffz(0xff), 8);
	KSIM_EXPECT_EQ(ffz(~1UL), 0);
	KSIM_EXPECT_EQ(ffz(~(1UL << 63)), 63);
	KSIM_EXPECT_EQ(ffs(0), 0);
	KSIM_EXPECT_EQ(ffs(8), 4);
	KSIM_EXPECT_EQ(get_count_order(0), -1);
	KSIM_EXPECT_EQ(get_count_order(1), 0);
	KSIM_EXPECT_EQ(get_count_order(2), 1);
	KSIM_EXPECT_EQ(get_count_order(3), 2);
	KSIM_EXPECT_EQ(get_count_order(4), 2);
	KSIM_EXPECT_EQ(get_count_order(5), 3);
	KSIM_EXPECT_EQ(rol32(0x80000001U, 1), 3);
	KSIM_EXPECT_EQ(ror32(3, 1), 0x80000001U);
	KSIM_EXPECT_EQ(rol64(1ULL << 63, 2), 2);
	KSIM_EXPECT_EQ(ror64(1, 0), 1);
}

KSIM_TEST(log2_and_powers)
{
	/* constant-folded forms */
	KSIM_EXPECT_EQ(ilog2(1), 0);
	KSIM_EXPECT_EQ(ilog2(2), 1);
	KSIM_EXPECT_EQ(ilog2(3), 1);
	KSIM_EXPECT_EQ(ilog2(4096), 12);
	KSIM_EXPECT_EQ(ilog2(4097), 12);
	KSIM_EXPECT_EQ(ilog2(1ULL << 63), 63);
	KSIM_EXPECT_EQ(roundup_pow_of_two(1), 1);
	KSIM_EXPECT_EQ(roundup_pow_of_two(2), 2);
	KSIM_EXPECT_EQ(roundup_pow_of_two(3), 4);
	KSIM_EXPECT_EQ(roundup_pow_of_two(4097), 8192);
	KSIM_EXPECT_EQ(rounddown_pow_of_two(1), 1);
	KSIM_EXPECT_EQ(rounddown_pow_of_two(3), 2);
	KSIM_EXPECT_EQ(rounddown_pow_of_two(4097), 4096);
	KSIM_EXPECT_EQ(order_base_2(0), 0);
	KSIM_EXPECT_EQ(order_base_2(1), 0);
	KSIM_EXPECT_EQ(order_base_2(2), 1);
	KSIM_EXPECT_EQ(order_base_2(3), 2);
	KSIM_EXPECT_EQ(order_base_2(4), 2);
	KSIM_EXPECT_EQ(order_base_2(5), 3);
	KSIM_EXPECT_EQ(order_base_2(4096), 12);
	KSIM_EXPECT_EQ(order_base_2(4097), 13);
	KSIM_EXPECT(!is_power_of_2(0));
	KSIM_EXPECT(is_power_of_2(1));
	KSIM_EXPECT(is_power_of_2(2));
	KSIM_EXPECT(!is_power_of_2(6));
	KSIM_EXPECT(is_power_of_2(1UL << 63));
	KSIM_EXPECT(!is_power_of_2((1UL << 63) + 1));

	/* runtime forms agree with a naive computation */
	for (unsigned long n = 1; n < 5000; n++) {
		unsigned long v = opaque(n), up = 1, down = 1;
		u32 v32 = (u32)opaque(n);
		int lg = 0;

		while (up < n)
			up <<= 1;
		while (down * 2 <= n)
			down <<= 1;
		while ((2UL << lg) <= n)
			lg++;
		KSIM_EXPECT_EQ(ilog2(v), lg);
		KSIM_EXPECT_EQ(ilog2(v32), lg);
		KSIM_EXPECT_EQ(roundup_pow_of_two(v), up);
		KSIM_EXPECT_EQ(rounddown_pow_of_two(v), down);
		KSIM_EXPECT_EQ(order_base_2(v), n == 1 ? 0 : ilog2(up));
		KSIM_EXPECT_EQ(is_power_of_2(v), up == n);
		if (ksim_problem_count(KSIM_P_TEST))
			return;
	}
	KSIM_EXPECT_EQ(ilog2(opaque(1UL << 63)), 63);
	KSIM_EXPECT_EQ(roundup_pow_of_two(opaque((1UL << 62) + 1)), 1UL << 63);
	KSIM_EXPECT_EQ(rounddown_pow_of_two(opaque(~0UL)), 1UL << 63);
}

KSIM_TEST(genmask_and_bit)
{
	KSIM_EXPECT_EQ(BIT(0), 1);
	KSIM_EXPECT_EQ(BIT(5), 32);
	KSIM_EXPECT_EQ(BIT(63), 0x8000000000000000UL);
	KSIM_EXPECT_EQ(BIT_ULL(40), 1ULL << 40);
	KSIM_EXPECT_EQ(GENMASK(3, 0), 0xf);
	KSIM_EXPECT_EQ(GENMASK(15, 8), 0xff00);
	KSIM_EXPECT_EQ(GENMASK(0, 0), 1);
	KSIM_EXPECT_EQ(GENMASK(63, 63), 0x8000000000000000UL);
	KSIM_EXPECT_EQ(GENMASK(63, 0), ~0UL);
	KSIM_EXPECT_EQ(GENMASK(39, 21), 0xffffe00000UL);
	KSIM_EXPECT_EQ(GENMASK_ULL(39, 21), 0xffffe00000ULL);
	KSIM_EXPECT_EQ(GENMASK_ULL(63, 32), 0xffffffff00000000ULL);
	for (int h = 0; h < 64; h++)
		for (int l = 0; l <= h; l++) {
			unsigned long m = 0;

			for (int b = l; b <= h; b++)
				m |= 1UL << b;
			if (GENMASK(opaque(h), opaque(l)) != m) {
				KSIM_EXPECT_EQ(GENMASK(opaque(h), opaque(l)), m);
				return;
			}
		}
}

KSIM_TEST(atomic_ops)
{
	atomic_t v = ATOMIC_INIT(5);
	int old;

	KSIM_EXPECT_EQ(atomic_read(&v), 5);
	KSIM_EXPECT_EQ(atomic_inc_return(&v), 6);
	KSIM_EXPECT_EQ(atomic_dec_return(&v), 5);
	KSIM_EXPECT_EQ(atomic_add_return(10, &v), 15);
	KSIM_EXPECT_EQ(atomic_sub_return(14, &v), 1);
	KSIM_EXPECT(atomic_dec_and_test(&v));
	KSIM_EXPECT_EQ(atomic_read(&v), 0);
	KSIM_EXPECT(!atomic_dec_and_test(&v));
	KSIM_EXPECT_EQ(atomic_read(&v), -1);
	KSIM_EXPECT(atomic_inc_and_test(&v));

	/* cmpxchg returns the old value, swaps only on match */
	KSIM_EXPECT_EQ(atomic_cmpxchg(&v, 0, 10), 0);
	KSIM_EXPECT_EQ(atomic_read(&v), 10);
	KSIM_EXPECT_EQ(atomic_cmpxchg(&v, 0, 20), 10);
	KSIM_EXPECT_EQ(atomic_read(&v), 10);
	old = 3;
	KSIM_EXPECT(!atomic_try_cmpxchg(&v, &old, 4));
	KSIM_EXPECT_EQ(old, 10);			/* updated on failure */
	KSIM_EXPECT(atomic_try_cmpxchg(&v, &old, 11));
	KSIM_EXPECT_EQ(atomic_read(&v), 11);

	KSIM_EXPECT(!atomic_add_unless(&v, 1, 11));
	KSIM_EXPECT_EQ(atomic_read(&v), 11);
	KSIM_EXPECT(atomic_add_unless(&v, 5, 0));
	KSIM_EXPECT_EQ(atomic_read(&v), 16);
	KSIM_EXPECT_EQ(atomic_fetch_add_unless(&v, 1, 16), 16);
	KSIM_EXPECT_EQ(atomic_read(&v), 16);
	KSIM_EXPECT_EQ(atomic_fetch_add(4, &v), 16);
	KSIM_EXPECT_EQ(atomic_read(&v), 20);
	KSIM_EXPECT_EQ(atomic_fetch_sub(5, &v), 20);
	KSIM_EXPECT_EQ(atomic_fetch_inc(&v), 15);
	KSIM_EXPECT_EQ(atomic_fetch_dec(&v), 16);
	KSIM_EXPECT_EQ(atomic_xchg(&v, 3), 15);
	KSIM_EXPECT_EQ(atomic_read(&v), 3);
	KSIM_EXPECT_EQ(atomic_fetch_or(0x10, &v), 3);
	KSIM_EXPECT_EQ(atomic_fetch_and(0x12, &v), 0x13);
	KSIM_EXPECT_EQ(atomic_read(&v), 0x12);

	atomic_set(&v, 0);
	KSIM_EXPECT(!atomic_inc_not_zero(&v));
	KSIM_EXPECT_EQ(atomic_read(&v), 0);
	KSIM_EXPECT_EQ(atomic_dec_if_positive(&v), -1);
	KSIM_EXPECT_EQ(atomic_read(&v), 0);
	atomic_set(&v, 2);
	KSIM_EXPECT(atomic_inc_not_zero(&v));
	KSIM_EXPECT_EQ(atomic_dec_if_positive(&v), 2);
	KSIM_EXPECT_EQ(atomic_read(&v), 2);
	atomic_add(3, &v);
	atomic_sub(1, &v);
	atomic_inc(&v);
	atomic_dec(&v);
	atomic_or(0x40, &v);
	atomic_and(0x44, &v);
	KSIM_EXPECT_EQ(atomic_read(&v), 0x44);
	KSIM_EXPECT(atomic_sub_and_test(0x44, &v));
}

KSIM_TEST(atomic64_and_long)
{
	atomic64_t v = ATOMIC64_INIT(1LL << 40);
	atomic_long_t l = ATOMIC_LONG_INIT(-1);

	KSIM_EXPECT_EQ(atomic64_read(&v), 1LL << 40);
	KSIM_EXPECT_EQ(atomic64_add_return(1LL << 40, &v), 1LL << 41);
	KSIM_EXPECT_EQ(atomic64_inc_return(&v), (1LL << 41) + 1);
	KSIM_EXPECT_EQ(atomic64_cmpxchg(&v, (1LL << 41) + 1, -5), (1LL << 41) + 1);
	KSIM_EXPECT_EQ(atomic64_read(&v), -5);
	KSIM_EXPECT_EQ(atomic64_fetch_add(5, &v), -5);
	KSIM_EXPECT_EQ(atomic64_xchg(&v, 1LL << 62), 0);
	KSIM_EXPECT(!atomic64_add_unless(&v, 1, 1LL << 62));
	KSIM_EXPECT_EQ(atomic64_dec_if_positive(&v), (1LL << 62) - 1);
	atomic64_set(&v, 1);
	KSIM_EXPECT(atomic64_dec_and_test(&v));

	KSIM_EXPECT(atomic_long_inc_and_test(&l));
	KSIM_EXPECT_EQ(atomic_long_add_return(LONG_MAX, &l), LONG_MAX);
	KSIM_EXPECT_EQ(atomic_long_xchg(&l, 7), LONG_MAX);
	KSIM_EXPECT_EQ(atomic_long_read(&l), 7);
}

KSIM_TEST(cmpxchg_and_xchg_macros)
{
	unsigned long ul = 10;
	u8 b = 0xfe;
	int x = 1, y = 2, *ptr = &x;
	unsigned int expected;
	u32 w = 5;

	KSIM_EXPECT_EQ(cmpxchg(&ul, 10, 20), 10);
	KSIM_EXPECT_EQ(ul, 20);
	KSIM_EXPECT_EQ(cmpxchg(&ul, 10, 30), 20);
	KSIM_EXPECT_EQ(ul, 20);
	KSIM_EXPECT_EQ(cmpxchg(&ul, 20, ~0UL), 20);
	KSIM_EXPECT(ul == ~0UL);

	KSIM_EXPECT_EQ(cmpxchg(&b, 0xfe, 0xff), 0xfe);
	KSIM_EXPECT_EQ(b, 0xff);

	KSIM_EXPECT(cmpxchg(&ptr, &x, &y) == &x);
	KSIM_EXPECT(ptr == &y);
	KSIM_EXPECT(cmpxchg(&ptr, &x, NULL) == &y);
	KSIM_EXPECT(ptr == &y);

	KSIM_EXPECT_EQ(xchg(&w, 9), 5);
	KSIM_EXPECT_EQ(w, 9);
	expected = 8;
	KSIM_EXPECT(!try_cmpxchg(&w, &expected, 1));
	KSIM_EXPECT_EQ(expected, 9);
	KSIM_EXPECT(try_cmpxchg(&w, &expected, 1));
	KSIM_EXPECT_EQ(w, 1);
}

#define ATOMIC_THREADS	4
#define ATOMIC_ITERS	10000

static atomic_t shared_count;
static unsigned long shared_bits[1];

static void *atomic_inc_fn(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ATOMIC_ITERS; i++)
		atomic_inc(&shared_count);
	/* each thread owns 16 bits of one shared word */
	for (int i = 0; i < ATOMIC_ITERS; i++)
		change_bit(id * 16 + (i % 16), shared_bits);
	return NULL;
}

KSIM_TEST(atomic_concurrent)
{
	pthread_t th[ATOMIC_THREADS];
	long started = 0;

	atomic_set(&shared_count, 0);
	shared_bits[0] = 0;
	for (long i = 0; i < ATOMIC_THREADS; i++) {
		if (pthread_create(&th[i], NULL, atomic_inc_fn, (void *)i))
			break;
		started++;
	}
	KSIM_EXPECT_EQ(started, ATOMIC_THREADS);
	for (long i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	KSIM_EXPECT_EQ(atomic_read(&shared_count), ATOMIC_THREADS * ATOMIC_ITERS);
	/* 10000 flips per thread over 16 bits: 625 each, an odd count -> all set */
	KSIM_EXPECT_EQ(shared_bits[0], GENMASK(ATOMIC_THREADS * 16 - 1, 0));
}
