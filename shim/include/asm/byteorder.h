/* SPDX-License-Identifier: GPL-2.0 */
/* x86-64 is little-endian: the kernel's byte-order conversions. */
#ifndef _ASM_X86_BYTEORDER_H
#define _ASM_X86_BYTEORDER_H
#include <linux/types.h>
#define __LITTLE_ENDIAN_BITFIELD	1
#define cpu_to_be16(x)	((__be16)__builtin_bswap16(x))
#define cpu_to_be32(x)	((__be32)__builtin_bswap32(x))
#define cpu_to_be64(x)	((__be64)__builtin_bswap64(x))
#define be16_to_cpu(x)	((u16)__builtin_bswap16(x))
#define be32_to_cpu(x)	((u32)__builtin_bswap32(x))
#define be64_to_cpu(x)	((u64)__builtin_bswap64(x))
#define cpu_to_le16(x)	((__le16)(x))
#define cpu_to_le32(x)	((__le32)(x))
#define cpu_to_le64(x)	((__le64)(x))
#define le16_to_cpu(x)	((u16)(x))
#define le32_to_cpu(x)	((u32)(x))
#define le64_to_cpu(x)	((u64)(x))
#endif
