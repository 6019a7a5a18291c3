/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture layer of the vector mask emulation: what the ftrace
 * back end (vecmask_ftrace.c) needs from an architecture and from the
 * kernel's ftrace flavour, and nothing else. Kbuild builds the arch file
 * (vecmask_x86.c, vecmask_arm64.c) for its ARCH, and vecmask_ftrace.c where
 * this header names a back end (SI_VECMASK_BACKEND).
 *
 *                  x86-64, arm64 6.2+ (6.12, 7.x)     arm64 6.1
 * ftrace flavour   WITH_ARGS (x86-64 also WITH_REGS)  WITH_REGS
 * ftrace_ops       IPMODIFY                           SAVE_REGS|IPMODIFY
 * redirect         ftrace_regs_set_instruction_pointer()
 *                                                     instruction_pointer_set(ftrace_get_regs())
 * skipped handler  x86-64: C function, returns through the return thunk (RETHUNK)
 *                  arm64: C function, signs and checks its own return
 *                  address (pointer authentication)
 * indirect call    x86-64 IBT: the target begins with endbr64
 *                  arm64 BTI: the target begins with a landing pad
 *                  (bti c, bti jc, paciasp, pacibsp)
 *
 * On both the hook runs at the handler's entry, before its prologue, and
 * the trampoline returns to the ip it saved: a redirected handler is left
 * as if its caller had called the replacement (same return address, same
 * stack pointer, same arguments).
 */
#ifndef _SI_VECMASK_ARCH_H
#define _SI_VECMASK_ARCH_H

#include <linux/bug.h>
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/types.h>
#include "compat.h"

#if defined(CONFIG_X86_64)
#define SI_ARCH_NAME	"x86-64"
#elif defined(CONFIG_ARM64)
#define SI_ARCH_NAME	"arm64"
#endif

/*
 * The ftrace flavour that lets a callback change where the traced function
 * continues. WITH_ARGS (x86-64 since 5.11, arm64 since 6.2) saves the
 * argument registers, the stack pointer and the ip in struct ftrace_regs,
 * and its trampoline returns to the ip a callback set, as livepatch relies
 * on; WITH_REGS (x86-64, arm64 until 6.1) saves a whole pt_regs on request
 * (SAVE_REGS), which arm64 6.2+ refuses. WITH_ARGS is preferred where both
 * exist: on x86-64 its trampoline (ftrace_caller, not ftrace_regs_caller)
 * skips the flags and seven more registers, about 26 instructions per pass
 * and two passes per masked dispatch on RT (B6). Neither setter may be
 * taken from the generic header where its flavour is absent: it is an
 * empty macro there.
 */
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define SI_VECMASK_FTRACE	"ftrace with args"
#define SI_VECMASK_FTRACE_FLAGS	FTRACE_OPS_FL_IPMODIFY

/* Make the traced function continue at @ip. */
static __always_inline void si_vecmask_redirect(struct ftrace_regs *fregs,
						unsigned long ip)
{
	ftrace_regs_set_instruction_pointer(fregs, ip);
}
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define SI_VECMASK_FTRACE	"ftrace with regs"
#define SI_VECMASK_FTRACE_FLAGS	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY)

static __always_inline void si_vecmask_redirect(struct ftrace_regs *fregs,
						unsigned long ip)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	/* never NULL: the ops ask for SAVE_REGS */
	if (!WARN_ON_ONCE(!regs))
		instruction_pointer_set(regs, ip);
}
#endif

/* The architectures with a back end: those whose trampolines were checked. */
#if defined(SI_VECMASK_FTRACE) && (defined(CONFIG_X86_64) || defined(CONFIG_ARM64))
#define SI_VECMASK_BACKEND	SI_ARCH_NAME ", " SI_VECMASK_FTRACE
#endif

/*
 * Where a skipped handler goes instead of its body (vecmask_<arch>.c):
 * entered at the handler's entry with its caller's return address, it
 * returns to the softirq loop.
 */
void si_vecmask_skipped(void);

/*
 * May the function at @func be called through a pointer, where the kernel
 * checks indirect branch targets in hardware (IBT, BTI)? *@why says why or
 * why not. kCFI is checked by the caller (symbols.c), for every arch.
 */
#ifdef SI_ARCH_NAME
bool si_arch_func_callable(unsigned long func, const char **why);
#else
static inline bool si_arch_func_callable(unsigned long func, const char **why)
{
	*why = "yes: no branch target checks known here";
	return true;
}
#endif

#endif /* _SI_VECMASK_ARCH_H */
