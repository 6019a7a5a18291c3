/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture layer of the vector mask emulation: what the ftrace
 * back end (vecmask_ftrace.c) needs from an architecture and from the
 * kernel's ftrace flavour, and nothing else. Kbuild builds the arch file
 * (vecmask_x86.c, vecmask_arm64.c) for its ARCH, and vecmask_ftrace.c where
 * this header names a back end (SI_VECMASK_BACKEND).
 *
 *                  x86-64            arm64 6.1          arm64 6.2+ (6.12, 7.x)
 * ftrace flavour   WITH_REGS         WITH_REGS          WITH_ARGS (+ CALL_OPS)
 * ftrace_ops       SAVE_REGS|IPMODIFY                   IPMODIFY (SAVE_REGS: -EINVAL)
 * redirect         instruction_pointer_set(ftrace_get_regs())
 *                                                       ftrace_regs_set_instruction_pointer()
 * skipped handler  C function, returns through the return thunk (RETHUNK)
 *                                    C function, signs and checks its own
 *                                    return address (pointer authentication)
 * call through a   IBT: the target   BTI: the target begins with a landing
 * pointer          begins endbr64    pad (bti c, bti jc, paciasp, pacibsp)
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

#if defined(CONFIG_X86_64)
#define SI_ARCH_NAME	"x86-64"
#elif defined(CONFIG_ARM64)
#define SI_ARCH_NAME	"arm64"
#endif

/*
 * The ftrace flavour that lets a callback change where the traced function
 * continues. WITH_REGS (x86-64, arm64 until 6.1) saves a whole pt_regs on
 * request; WITH_ARGS (arm64 since 6.2, which dropped WITH_REGS) saves the
 * argument registers, the stack pointer and the ip in struct ftrace_regs,
 * and refuses SAVE_REGS. WITH_REGS is preferred where both exist (x86-64):
 * it is what was measured there (B6). The generic
 * ftrace_instruction_pointer_set() cannot serve both: it is an empty macro
 * where WITH_ARGS is absent (6.1).
 */
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define SI_VECMASK_FTRACE	"ftrace with regs"
#define SI_VECMASK_FTRACE_FLAGS	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY)

/* Make the traced function continue at @ip. */
static __always_inline void si_vecmask_redirect(struct ftrace_regs *fregs,
						unsigned long ip)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	/* never NULL: the ops ask for SAVE_REGS */
	if (!WARN_ON_ONCE(!regs))
		instruction_pointer_set(regs, ip);
}
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define SI_VECMASK_FTRACE	"ftrace with args"
#define SI_VECMASK_FTRACE_FLAGS	FTRACE_OPS_FL_IPMODIFY

static __always_inline void si_vecmask_redirect(struct ftrace_regs *fregs,
						unsigned long ip)
{
	ftrace_regs_set_instruction_pointer(fregs, ip);
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
