/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Section annotations vanish; initcalls register constructors so a kernel
 * file's init function runs before main() would call it anyway.  Test
 * drivers call the init functions they need explicitly, so module_init() is
 * kept inert here (kernel test modules define their own anyway).
 */
#ifndef _LINUX_INIT_H
#define _LINUX_INIT_H
#define __init
#define __exit
#define __initdata
#define __initconst
#define __exitdata
#define __init_or_module
#define __meminit
#define __meminitdata
#define __refdata
#define __ref
#define __initref
#define __exit_p(x)	x
#define __setup(str, fn)
#define early_param(str, fn)
#define core_param(name, var, type, perm)
#define pure_initcall(fn)
#define core_initcall(fn)
#define postcore_initcall(fn)
#define arch_initcall(fn)
#define subsys_initcall(fn)
#define fs_initcall(fn)
#define device_initcall(fn)
#define late_initcall(fn)
#define late_initcall_sync(fn)
#endif
