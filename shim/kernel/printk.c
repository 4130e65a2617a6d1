// SPDX-License-Identifier: GPL-2.0
/*
 * printk: kernel log levels filtered by console_loglevel (KSIM_LOGLEVEL),
 * printed to stdout without the level prefix.  KERN_CONT continues a line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/printk.h>
#include <linux/kern_levels.h>
#include <ksim/ksim.h>

int console_loglevel = -1;

static int current_level(void)
{
	if (console_loglevel < 0) {
		const char *e = getenv("KSIM_LOGLEVEL");

		console_loglevel = e ? atoi(e) : 7;
	}
	return console_loglevel;
}

static __thread int last_level = 4;

int vprintk(const char *fmt, va_list args)
{
	int level = 4;	/* default message loglevel: warning */

	while (fmt[0] == KERN_SOH_ASCII && fmt[1]) {
		if (fmt[1] == 'c')
			level = last_level;
		else if (fmt[1] >= '0' && fmt[1] <= '7')
			level = fmt[1] - '0';
		fmt += 2;
	}
	last_level = level;
	if (level >= current_level())
		return 0;
	return vprintf(fmt, args);
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vprintk(fmt, ap);
	va_end(ap);
	return r;
}

#undef dump_stack
void dump_stack(void)
{
	ksim_dump_stack();
}

void ksim_debug_check_failed(const char *file, int line, const char *what)
{
	ksim_problem(KSIM_P_WARN, file, line, "%s (see the dump above)", what);
}
