/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_MATH_H
#define _LINUX_MATH_H
#define __round_mask(x, y)	((__typeof__(x))((y)-1))
#define round_up(x, y)		((((x)-1) | __round_mask(x, y))+1)
#define round_down(x, y)	((x) & ~__round_mask(x, y))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define DIV_ROUND_DOWN_ULL(ll, d) ({ unsigned long long _tmp = (ll); _tmp / (d); })
#define DIV_ROUND_UP_ULL(ll, d)	DIV_ROUND_DOWN_ULL((unsigned long long)(ll) + (d) - 1, (d))
#define roundup(x, y)		({ typeof(y) __y = y; (((x) + (__y - 1)) / __y) * __y; })
#define rounddown(x, y)		({ typeof(x) __x = (x); __x - (__x % (y)); })
#define DIV_ROUND_CLOSEST(x, divisor) (((x) + ((divisor) / 2)) / (divisor))
#define abs(x)	({ typeof(x) __x = (x); __x < 0 ? -__x : __x; })
#define mult_frac(x, n, d) ({ typeof(x) q = (x) / (d); typeof(x) r = (x) % (d); (q * (n)) + ((r * (n)) / (d)); })
#endif
