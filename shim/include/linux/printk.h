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
/*
 * In the kernel dump_stack() only prints.  Kernel code built with a
 * CONFIG_DEBUG_* option whose checks print, dump_stack() and carry on
 * (CONFIG_DEBUG_MAPLE_TREE's MAS_WARN_ON() and MT_BUG_ON(), in
 * lib/maple_tree.c and in the maple_tree.h inlines the VMA code calls)
 * defines KSIM_DUMP_STACK_FAILS to a description of those checks before
 * its first include: each dump_stack() is then a counted KSIM_P_WARN
 * problem, so the test, fuzz input or stress run that failed the check
 * fails (the kernel's own harness asserts there).
 */
#ifdef KSIM_DUMP_STACK_FAILS
void ksim_debug_check_failed(const char *file, int line, const char *what);
#define dump_stack()	ksim_debug_check_failed(__FILE__, __LINE__, KSIM_DUMP_STACK_FAILS)
#elif !defined(dump_stack)	/* the kernel's test harness headers define their own */
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
