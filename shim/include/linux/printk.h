/* SPDX-License-Identifier: GPL-2.0 */
/*
 * printk with kernel log levels.  Messages at or below the console level
 * (KSIM_LOGLEVEL, default 7: everything but pr_debug) go to stdout with no
 * level prefix, so kernel test output reads exactly as in dmesg.
 */
#ifndef __KERNEL_PRINTK__
#define __KERNEL_PRINTK__

#include <stdarg.h>
#include <linux/compiler.h>
#include <linux/kern_levels.h>

extern int console_loglevel;

__printf(1, 2) int printk(const char *fmt, ...);
int vprintk(const char *fmt, va_list args);
#ifndef dump_stack
void dump_stack(void);
#endif

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define pr_emerg(fmt, ...)	printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warning		pr_warn
#define pr_notice(fmt, ...)	printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...)	printk(KERN_CONT fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_devel(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define no_printk(fmt, ...)	({ if (0) printk(fmt, ##__VA_ARGS__); 0; })
#define pr_err_once		pr_err
#define pr_warn_once		pr_warn
#define pr_info_once		pr_info
#define pr_warn_ratelimited	pr_warn
#define pr_err_ratelimited	pr_err
#define pr_info_ratelimited	pr_info
#define printk_ratelimit()	0
#define printk_deferred		printk
#define printk_once		printk

#endif
