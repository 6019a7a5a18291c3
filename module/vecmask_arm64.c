// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 part of the vector mask's arch layer (vecmask_arch.h): where a
 * skipped handler goes, and whether a function may be called through a
 * pointer under BTI. The hooks themselves are vecmask_ftrace.c's.
 *
 * arm64's ftrace call site is two instructions at the function's entry,
 * before its prologue: `mov x9, x30; bl ftrace_caller` (6.1:
 * ftrace_regs_caller). The trampoline saves the ip after the bl as the pc,
 * the caller's return address (x9) as the lr, calls the ops, then restores
 * x30 from the saved lr and returns with `ret x9` to the saved pc (6.1:
 * pt_regs->pc, set with instruction_pointer_set(); 6.2+: ftrace_regs->pc,
 * set with ftrace_regs_set_instruction_pointer()). So a redirected handler
 * enters the replacement with the handler's own return address in x30 and
 * the caller's stack pointer, as a call from the softirq loop would.
 */
#include <linux/compiler.h>
#include <linux/uaccess.h>
#include "vecmask_arch.h"

/*
 * Pointer authentication (ARM64_PTR_AUTH_KERNEL, Debian: on) signs the
 * return address in a function's prologue (paciasp, keyed on the stack
 * pointer) and checks it before returning (autiasp). The hook runs before
 * the handler's paciasp, so nothing has been signed when the pc is moved:
 * the replacement signs and checks the return address it was entered with,
 * against the same stack pointer, and returns to the softirq loop (6.1
 * builds with pac-ret+leaf, signing even this leaf). BTI (ARM64_BTI_KERNEL):
 * `ret x9` is not a branch BTI checks, so neither this function nor the
 * tracked wrappers need a landing pad there; they have one anyway (`bti c`,
 * their address is taken). A shadow call stack (clang only) would need
 * more: Debian's kernels are built with gcc, and the back end is only
 * tested there.
 */
noinline notrace void si_vecmask_skipped(void)
{
	barrier();
}

#define SI_A64_BTI_C	0xd503245f
#define SI_A64_BTI_JC	0xd50324df
#define SI_A64_PACIASP	0xd503233f
#define SI_A64_PACIBSP	0xd503237f

/*
 * Under BTI (ARM64_BTI_KERNEL, on a CPU that has it) an indirect call
 * (blr) must land on `bti c`, `bti jc`, or a paciasp/pacibsp (with
 * SCTLR_EL1.BT1 set, as the kernel sets it, those accept blr but not a br
 * through other registers than x16/x17). gcc puts `bti c` first in every
 * function that may be called indirectly, before the ftrace nops; a static
 * function never called through a pointer may have none, and calling it so
 * would raise a Branch Target exception. QEMU's -cpu max enforces BTI.
 */
bool si_arch_func_callable(unsigned long func, const char **why)
{
	u32 insn;

	if (!IS_ENABLED(CONFIG_ARM64_BTI_KERNEL)) {
		*why = "yes: no BTI";
		return true;
	}
	if (copy_from_kernel_nofault(&insn, (void *)func, sizeof(insn))) {
		*why = "no: unreadable";
		return false;
	}
	insn = le32_to_cpu((__force __le32)insn);
	switch (insn) {
	case SI_A64_BTI_C:
	case SI_A64_BTI_JC:
		*why = "yes: starts with a bti landing pad";
		return true;
	case SI_A64_PACIASP:
	case SI_A64_PACIBSP:
		*why = "yes: starts with paciasp/pacibsp";
		return true;
	}
	*why = "no: BTI kernel, no landing pad";
	return false;
}
