// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 back end of the softirq vector mask emulation: a kprobe (ftrace
 * based where the kernel has KPROBES_ON_FTRACE) at the entry of each timer
 * vector handler. When the vector is masked on this CPU the pre-handler
 * records it and makes the handler return at once, by pointing regs->ip at
 * an empty function, as bpf_override_return() does.
 *
 * The handlers are reached only through softirq_vec[] from the softirq
 * loop (handle_softirqs(), whether entered from irq exit, local_bh_enable()
 * or ksoftirqd); on PREEMPT_RT kernels with the ktimers patch (Debian RT
 * 6.1 and 6.12) run_timersd() moves the timer bits into the pending word
 * and calls the same loop, so one hook per vector covers every path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "symbols.h"
#include "vecmask.h"

/*
 * Where a skipped handler goes instead of its body: entered at the
 * handler's first instruction with the caller's return address on the
 * stack, it returns to the softirq loop. A C function built with the
 * kernel's flags returns through the return thunk (RETHUNK kernels) where
 * a bare `ret` would not; notrace and NOKPROBE keep probes off it.
 */
static noinline notrace void si_vecmask_skipped(void)
{
	barrier();
}

NOKPROBE_SYMBOL(si_vecmask_skipped);

static __always_inline int si_vecmask_pre(struct pt_regs *regs,
					  unsigned int vec)
{
	if (!si_vecmask_defer(vec))
		return 0;
	instruction_pointer_set(regs, (unsigned long)si_vecmask_skipped);
	/* regs->ip changed: kprobes must neither single-step nor restore it */
	return 1;
}

static int si_pre_timer(struct kprobe *kp, struct pt_regs *regs)
{
	return si_vecmask_pre(regs, TIMER_SOFTIRQ);
}

NOKPROBE_SYMBOL(si_pre_timer);

static int si_pre_hrtimer(struct kprobe *kp, struct pt_regs *regs)
{
	return si_vecmask_pre(regs, HRTIMER_SOFTIRQ);
}

NOKPROBE_SYMBOL(si_pre_hrtimer);

/* The hooks, registered by name; a required one missing disables us. */
static struct si_hook {
	const char *name;
	kprobe_pre_handler_t handler;
	unsigned int vec;
	bool required;
	bool registered;
	struct kprobe kp;
} si_hooks[] = {
	{ "run_timer_softirq",   si_pre_timer,   TIMER_SOFTIRQ,   true },
	{ "hrtimer_run_softirq", si_pre_hrtimer, HRTIMER_SOFTIRQ, true },
};

/*
 * Where symbols.c found softirq_vec, make sure the probed function is the
 * one the softirq loop calls for the vector (the probe sits after the
 * ENDBR on IBT kernels).
 */
static int si_hook_check_vector(struct si_hook *h)
{
	unsigned long tbl = si_lookup_name("softirq_vec");
	struct softirq_action action;
	unsigned long delta;

	if (!tbl)
		return 0;
	if (copy_from_kernel_nofault(&action,
				     (struct softirq_action *)tbl + h->vec,
				     sizeof(action)))
		return -EFAULT;
	delta = (unsigned long)h->kp.addr - (unsigned long)action.action;
	if (delta == 0 || (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && delta == 4))
		return 0;
	pr_info("hook %s: softirq vector %u is handled by %ps instead\n",
		h->name, h->vec, action.action);
	return -EINVAL;
}

static int si_hook_register(struct si_hook *h, const char *fail_hook)
{
	int ret;

	if (fail_hook[0] && sysfs_streq(fail_hook, h->name)) {
		pr_info("hook %s: failing as vecmask_test_fail_hook asks\n",
			h->name);
		return -ENOENT;
	}
	memset(&h->kp, 0, sizeof(h->kp));
	h->kp.symbol_name = h->name;
	h->kp.pre_handler = h->handler;
	ret = register_kprobe(&h->kp);
	if (ret) {
		pr_info("hook %s: register_kprobe: %pe\n", h->name, ERR_PTR(ret));
		return ret;
	}
	ret = si_hook_check_vector(h);
	if (ret) {
		unregister_kprobe(&h->kp);
		return ret;
	}
	h->registered = true;
	pr_info("hook %s: %pS (%s)%s\n", h->name, h->kp.addr,
		h->kp.flags & KPROBE_FLAG_FTRACE ? "ftrace" : "int3",
		si_lookup_name("softirq_vec") ? ", is softirq_vec's" : "");
	return 0;
}

void si_vecmask_arch_exit(void)
{
	struct si_hook *h;

	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++) {
		if (!h->registered)
			continue;
		unregister_kprobe(&h->kp);
		h->registered = false;
		if (h->kp.nmissed)
			pr_warn("hook %s: missed %lu times (another kprobe was running)\n",
				h->name, h->kp.nmissed);
	}
}

int si_vecmask_arch_init(const char *fail_hook, const char **why)
{
	struct si_hook *h;
	int ret;

	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++) {
		ret = si_hook_register(h, fail_hook);
		if (ret && h->required) {
			si_vecmask_arch_exit();
			*why = h->name;
			return ret;
		}
	}
	return 0;
}
