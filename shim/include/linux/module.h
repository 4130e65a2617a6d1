/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel test modules (lib/test_maple_tree.c, ...) run unchanged: the
 * module macros vanish and the test driver calls the init function itself.
 */
#ifndef _LINUX_MODULE_H
#define _LINUX_MODULE_H
#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/export.h>
struct module;
#ifndef module_init
#define module_init(x)
#endif
#ifndef module_exit
#define module_exit(x)
#endif
#ifndef MODULE_AUTHOR
#define MODULE_AUTHOR(x)
#endif
#ifndef MODULE_LICENSE
#define MODULE_LICENSE(x)
#endif
#ifndef MODULE_DESCRIPTION
#define MODULE_DESCRIPTION(x)
#endif
#define MODULE_ALIAS(x)
#define MODULE_IMPORT_NS(x)
#define MODULE_PARM_DESC(x, y)
#define module_param(name, type, perm)
#define module_param_named(name, value, type, perm)
#endif
