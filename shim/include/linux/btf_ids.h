/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BTF ids are filled in by resolve_btfids at kernel link time; without BTF
 * they stay 0, as in a kernel built without CONFIG_DEBUG_INFO_BTF.
 */
#ifndef _LINUX_BTF_IDS_H
#define _LINUX_BTF_IDS_H

#define BTF_ID_LIST(name)		static u32 __maybe_unused name[64];
#define BTF_ID_LIST_SINGLE(name, prefix, typename) static u32 __maybe_unused name[1];
#define BTF_ID_LIST_GLOBAL(name, n)	u32 __maybe_unused name[n];
#define BTF_ID_LIST_GLOBAL_SINGLE(name, prefix, typename) u32 __maybe_unused name[1];
#define BTF_ID(prefix, name)
#define BTF_ID_UNUSED

#endif
