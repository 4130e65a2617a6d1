/* SPDX-License-Identifier: GPL-2.0 */
/* lpm_trie.c includes this but uses nothing from it. */
#ifndef _NET_IPV6_H
#define _NET_IPV6_H
#endif
