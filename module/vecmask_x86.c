// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 back end of the softirq vector mask emulation: an ftrace_ops
 * callback at the entry of each timer vector handler, as livepatch
 * redirects a function. When the vector is masked on this CPU the
 * callback records it and points the saved ip at an empty function, so
 * the handler returns at once.
 *
 * The handlers are reached only through softirq_vec[] from the softirq
 * loop (handle_softirqs(), whether entered from irq exit, local_bh_enable()
 * or ksoftirqd); on PREEMPT_RT kernels with the ktimers patch (Debian RT
 * 6.1 and 6.12) run_timersd() moves the timer bits into the pending word
 * and calls the same loop, so one hook per vector covers every path.
 *
 * Why ftrace_ops and not a kprobe (on ftrace) there: it costs less than
 * half per dispatch (B6 under -icount: 68-76 ns against 158-162), it never
 * "misses" as a kprobe does while another kprobe runs on that CPU, and,
 * PERMANENT, it cannot be switched off behind our back (ftrace_enabled=0
 * is refused while it is registered, where debugfs can disable kprobes).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
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
 * a bare `ret` would not; notrace keeps ftrace off it.
 */
static noinline notrace void si_vecmask_skipped(void)
{
	barrier();
}

/*
 * Tracking (PREEMPT_RT, si_vecmask_arch_track()): a handler that is not
 * skipped goes through si_vecmask_run_tracked() instead, which marks it in
 * progress and calls it again; the hook lets that second entry through,
 * told by si_vecmask_cpu.calling naming the task. Another task may enter
 * the hook in between on this CPU where PREEMPT_RT has no BH lock (6.18+):
 * it then waits on handler_lock like any other. The cost, a second pass
 * through the hook, is paid by timer vector dispatches only (B6).
 */
typedef void (*si_handler_t)(void *arg);

static si_handler_t si_tracked_handler[NR_SOFTIRQS];
static bool si_tracking __read_mostly;

/*
 * Entered at the handler's first instruction, with its caller's return
 * address and arguments (a struct softirq_action * before 6.11, none
 * after: passed on as they came). Preemptible on RT, migration disabled
 * (softirq context), so the per-CPU lock is this CPU's throughout. A BH
 * section is an RCU read-side critical section on RT (the kernel takes
 * rcu_read_lock() with it), so synchronize_rcu() waits for every task in
 * here (vecmask.c, at load and unload).
 */
static __always_inline void si_vecmask_run_tracked(unsigned int vec, void *arg)
{
	spinlock_t *lock = this_cpu_ptr(&si_vecmask_cpu.handler_lock);
	bool deferred;

	/*
	 * The lock spans the handler only, not the softirq section around it:
	 * an executor that finds the handler in progress waits for it alone
	 * (boosting it), not for the other vectors this thread runs next nor
	 * for other tasks' BH sections queued on the BH lock (B7).
	 */
	spin_lock(lock);
	this_cpu_write(si_vecmask_cpu.in_handler, true);
	barrier();	/* marked before the look; the masking CPU is this one */
	/*
	 * The look at the mask and the record of a deferral must not be
	 * split by an unmask (irqs off, on this CPU: vecmask.c), or the
	 * vector would be recorded deferred after the unmask collected, and
	 * HRTIMER would stall until the next mask; the hook has preemption
	 * off for the same reason.
	 */
	preempt_disable();
	deferred = si_vecmask_defer(vec);
	if (!deferred)
		this_cpu_write(si_vecmask_cpu.calling, current);
	preempt_enable();
	if (!deferred)
		si_tracked_handler[vec](arg);
	barrier();
	this_cpu_write(si_vecmask_cpu.in_handler, false);
	spin_unlock(lock);
}

static noinline notrace void si_vecmask_run_timer(void *arg)
{
	si_vecmask_run_tracked(TIMER_SOFTIRQ, arg);
}

static noinline notrace void si_vecmask_run_hrtimer(void *arg)
{
	si_vecmask_run_tracked(HRTIMER_SOFTIRQ, arg);
}

static const unsigned long si_vecmask_run[NR_SOFTIRQS] = {
	[TIMER_SOFTIRQ] = (unsigned long)si_vecmask_run_timer,
	[HRTIMER_SOFTIRQ] = (unsigned long)si_vecmask_run_hrtimer,
};

/*
 * Called with preemption off (ftrace's recursion guard). Tracking is for
 * PREEMPT_RT only (vecmask.c): elsewhere its two looks are compiled out,
 * as every timer vector dispatch passes here (B6).
 */
static __always_inline void si_vecmask_hook(unsigned int vec, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (!regs)
		return;
	/* ours, marked in progress: run it, masked meanwhile or not */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) &&
	    unlikely(this_cpu_read(si_vecmask_cpu.calling) == current)) {
		this_cpu_write(si_vecmask_cpu.calling, NULL);
		return;
	}
	if (si_vecmask_defer(vec))
		instruction_pointer_set(regs, (unsigned long)si_vecmask_skipped);
	else if (IS_ENABLED(CONFIG_PREEMPT_RT) && READ_ONCE(si_tracking))
		instruction_pointer_set(regs, si_vecmask_run[vec]);
}

static void notrace si_hook_timer(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	si_vecmask_hook(TIMER_SOFTIRQ, fregs);
}

static void notrace si_hook_hrtimer(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	si_vecmask_hook(HRTIMER_SOFTIRQ, fregs);
}

#define SI_HOOK_FLAGS	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY | \
			 FTRACE_OPS_FL_PERMANENT)

/* The hooks, registered by name; a required one missing disables us. */
static struct si_hook {
	const char *name;
	unsigned int vec;
	bool required;
	bool registered;
	struct ftrace_ops ops;
} si_hooks[] = {
	{ "run_timer_softirq",   TIMER_SOFTIRQ,   true,
	  .ops = { .func = si_hook_timer, .flags = SI_HOOK_FLAGS } },
	{ "hrtimer_run_softirq", HRTIMER_SOFTIRQ, true,
	  .ops = { .func = si_hook_hrtimer, .flags = SI_HOOK_FLAGS } },
};

/*
 * Where symbols.c finds them, make sure the hooked function is the one
 * the softirq loop calls for the vector. Returns 1 if it is, 0 if that
 * cannot be told, a negative error if it is not.
 */
static int si_hook_check_vector(struct si_hook *h)
{
	unsigned long tbl = si_lookup_name("softirq_vec");
	unsigned long addr = si_lookup_name(h->name);
	struct softirq_action action;

	if (!tbl || !addr)
		return 0;
	if (copy_from_kernel_nofault(&action,
				     (struct softirq_action *)tbl + h->vec,
				     sizeof(action)))
		return -EFAULT;
	if (addr == (unsigned long)action.action)
		return 1;
	pr_info("hook %s: softirq vector %u is handled by %ps instead\n",
		h->name, h->vec, action.action);
	return -EINVAL;
}

static int si_hook_register(struct si_hook *h, const char *fail_hook)
{
	int ret, checked;

	if (fail_hook[0] && sysfs_streq(fail_hook, h->name)) {
		pr_info("hook %s: failing as vecmask_test_fail_hook asks\n",
			h->name);
		return -ENOENT;
	}
	checked = si_hook_check_vector(h);
	if (checked < 0)
		return checked;
	ret = ftrace_set_filter(&h->ops, (unsigned char *)h->name, strlen(h->name), 1);
	if (ret) {
		pr_info("hook %s: ftrace_set_filter: %pe\n", h->name, ERR_PTR(ret));
		return ret;
	}
	ret = register_ftrace_function(&h->ops);
	if (ret) {
		pr_info("hook %s: register_ftrace_function: %pe\n", h->name, ERR_PTR(ret));
		ftrace_free_filter(&h->ops);
		return ret;
	}
	h->registered = true;
	pr_info("hook %s: ftrace_ops%s\n", h->name, checked ? ", is softirq_vec's" : "");
	return 0;
}

void si_vecmask_arch_exit(void)
{
	struct si_hook *h;

	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++) {
		if (!h->registered)
			continue;
		unregister_ftrace_function(&h->ops);
		ftrace_free_filter(&h->ops);
		h->registered = false;
	}
	WRITE_ONCE(si_tracking, false);
}

/*
 * Track the hooked handlers, if each can be called through a pointer
 * (symbols.c checks it for IBT and CFI). After this, a handler entering
 * runs through si_vecmask_run_tracked().
 */
bool si_vecmask_arch_track(void)
{
	struct si_hook *h;

	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++) {
		unsigned long addr = si_lookup_name(h->name);

		if (!h->registered || !si_symbol_callable(addr)) {
			pr_info("hook %s: cannot call the handler, not tracked\n", h->name);
			return false;
		}
		si_tracked_handler[h->vec] = (si_handler_t)addr;
	}
	WRITE_ONCE(si_tracking, true);
	return true;
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
