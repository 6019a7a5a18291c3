// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 part of the vector mask's arch layer (vecmask_arch.h): where a
 * skipped handler goes, and whether a function may be called through a
 * pointer under IBT. The hooks themselves are vecmask_ftrace.c's.
 */
#include <linux/compiler.h>
#include <linux/uaccess.h>
#include "vecmask_arch.h"

/*
 * Entered at the handler's first instruction with the caller's return
 * address on the stack, it returns to the softirq loop. A C function built
 * with the kernel's flags returns through the return thunk (RETHUNK
 * kernels) where a bare `ret` would not; notrace keeps ftrace off it.
 */
noinline notrace void si_vecmask_skipped(void)
{
	barrier();
}

/*
 * With CONFIG_X86_KERNEL_IBT objtool "seals" functions whose address the
 * kernel never takes by overwriting their ENDBR with a NOP, and a CPU
 * enforcing IBT raises #CP on an indirect call to them. QEMU TCG does not
 * enforce IBT, so a test run would not notice: look for an intact endbr64.
 */
bool si_arch_func_callable(unsigned long func, const char **why)
{
	u32 insn;

	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT)) {
		*why = "yes: no IBT";
		return true;
	}
	if (copy_from_kernel_nofault(&insn, (void *)func, sizeof(insn))) {
		*why = "no: unreadable";
		return false;
	}
	/* f3 0f 1e fa; the kernel's is_endbr() also accepts the seal */
	if (insn == 0xfa1e0ff3) {
		*why = "yes: starts with endbr64";
		return true;
	}
	*why = "no: IBT kernel, no endbr64 (sealed)";
	return false;
}
