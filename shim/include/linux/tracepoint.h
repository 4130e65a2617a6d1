/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints compile to nothing; their arguments are still type-checked. */
#ifndef _LINUX_TRACEPOINT_H
#define _LINUX_TRACEPOINT_H
#define TRACE_EVENT(name, proto, args, struct, assign, print)		\
	static inline void trace_##name(proto) { }
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)			\
	static inline void trace_##name(proto) { }
#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define tracepoint_string(str)	str
#endif
