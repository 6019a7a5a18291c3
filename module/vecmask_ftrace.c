// SPDX-License-Identifier: GPL-2.0
/*
 * The back end of the softirq vector mask emulation, on x86-64 and arm64:
 * an ftrace_ops callback at the entry of each timer vector handler, as
 * livepatch redirects a function. When the vector is masked on this CPU
 * the callback records it and points the saved ip at an empty function,
 * so the handler returns at once. What differs per architecture and per
 * ftrace flavour is in vecmask_arch.h and vecmask_<arch>.c.
 *
 * The handlers are reached only through softirq_vec[] from the softirq
 * loop (handle_softirqs(), whether entered from irq exit, local_bh_enable()
 * or ksoftirqd); on PREEMPT_RT kernels with the ktimers patch (Debian RT
 * 6.1 and 6.12) run_timersd() moves the timer bits into the pending word
 * and calls the same loop, so one hook per vector covers every path.
 *
 * Why ftrace_ops and not a kprobe (on ftrace) there: it costs less than
 * half per dispatch (B6 under -icount on x86-64: 68-76 ns against
 * 158-162), it never "misses" as a kprobe does while another kprobe runs
 * on that CPU, and, PERMANENT, it cannot be switched off behind our back
 * (ftrace_enabled=0 is refused while it is registered, where debugfs can
 * disable kprobes).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include "symbols.h"
#include "vecmask.h"
#include "vecmask_arch.h"

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
 * Where softirq_vec cannot be read (CONFIG_KALLSYMS_ALL off, as in Debian's
 * arm64 6.1-rt, or kallsyms_lookup_name not callable), which vector a hooked
 * function serves is told from a dispatch instead. For a moment at load, a
 * probe on the softirq_entry tracepoint, which the softirq loop fires with
 * the vector's number right before calling its handler, notes that number
 * for its CPU and task, and the hooks note which vector the loop was on when
 * they fired (bit NR_SOFTIRQS: not called by the loop). Both timer vectors
 * are raised on this CPU: each hook must fire for its own vector and never
 * for another.
 */
static DEFINE_STATIC_KEY_FALSE(si_hook_verifying);

struct si_vec_entry {
	struct task_struct *task;
	unsigned int vec;
};

static DEFINE_PER_CPU(struct si_vec_entry, si_vec_entry);
static unsigned long si_hook_seen[NR_SOFTIRQS];

static void notrace si_probe_softirq_entry(void *data, unsigned int vec_nr)
{
	this_cpu_write(si_vec_entry.task, current);
	this_cpu_write(si_vec_entry.vec, vec_nr);
}

/* Preemption off (the hook's caller); the entry is this CPU's. */
static noinline notrace void si_hook_note(unsigned int vec)
{
	unsigned int on = NR_SOFTIRQS;

	if (this_cpu_read(si_vec_entry.task) == current) {
		on = min_t(unsigned int, this_cpu_read(si_vec_entry.vec), NR_SOFTIRQS);
		this_cpu_write(si_vec_entry.task, NULL);
	}
	set_bit(on, &si_hook_seen[vec]);
}

/*
 * Called with preemption off (ftrace's recursion guard). Tracking is for
 * PREEMPT_RT only (vecmask.c): elsewhere its two looks are compiled out,
 * as every timer vector dispatch passes here (B6).
 */
static __always_inline void si_vecmask_hook(unsigned int vec, struct ftrace_regs *fregs)
{
	/* at load only, where softirq_vec cannot be read: a jump patched out */
	if (static_branch_unlikely(&si_hook_verifying))
		si_hook_note(vec);
	/* ours, marked in progress: run it, masked meanwhile or not */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) &&
	    unlikely(this_cpu_read(si_vecmask_cpu.calling) == current)) {
		this_cpu_write(si_vecmask_cpu.calling, NULL);
		return;
	}
	if (si_vecmask_defer(vec))
		si_vecmask_redirect(fregs, (unsigned long)si_vecmask_skipped);
	else if (IS_ENABLED(CONFIG_PREEMPT_RT) && READ_ONCE(si_tracking))
		si_vecmask_redirect(fregs, si_vecmask_run[vec]);
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

#define SI_HOOK_FLAGS	(SI_VECMASK_FTRACE_FLAGS | FTRACE_OPS_FL_PERMANENT)

/* The hooks, registered by name; a required one missing disables us. */
static struct si_hook {
	const char *name;
	unsigned int vec;
	bool required;
	bool registered;
	bool checked;		/* found to be softirq_vec's handler of vec */
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

static int si_hook_register(struct si_hook *h, const char *fail_hook,
			    bool by_dispatch)
{
	int ret, checked = 0;

	if (fail_hook[0] && sysfs_streq(fail_hook, h->name)) {
		pr_info("hook %s: failing as vecmask_test_fail_hook asks\n",
			h->name);
		return -ENOENT;
	}
	if (!by_dispatch)
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
	h->checked = checked;
	pr_info("hook %s: ftrace_ops, %s\n", h->name,
		checked ? "is softirq_vec's" :
		by_dispatch ? "vector to be told from a dispatch (vecmask_test_vector_check)" :
		"softirq_vec unreadable, vector to be told from a dispatch");
	return 0;
}

static void si_find_softirq_entry(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "softirq_entry"))
		*(struct tracepoint **)priv = tp;
}

/* Each registered hook that is unchecked has fired for its vector, or 2 s passed. */
static bool si_hook_dispatched(unsigned long deadline)
{
	struct si_hook *h;

	if (time_after(jiffies, deadline))
		return true;
	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++)
		if (h->registered && !h->checked &&
		    !test_bit(h->vec, &si_hook_seen[h->vec]))
			return false;
	return true;
}

/*
 * Tell the vectors of the registered hooks that softirq_vec did not check
 * from a dispatch of both timer vectors on this CPU (see si_hook_note()).
 * 0 if each such hook fired for its own vector only, or if that cannot be
 * told (said so); a negative error if one fired for another vector or never.
 * @swapped (test only): expect each on the other timer vector.
 */
static int si_hook_check_dispatch(bool swapped, const char **why)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(2000);
	struct tracepoint *tp = NULL;
	unsigned long flags, seen;
	unsigned int want;
	struct si_hook *h;
	int ret = 0;

	if (IS_ENABLED(CONFIG_TRACEPOINTS))
		for_each_kernel_tracepoint(si_find_softirq_entry, &tp);
	if (tp)
		ret = tracepoint_probe_register(tp, si_probe_softirq_entry, NULL);
	if (!tp || ret) {
		pr_info("vector check: softirq_vec unreadable and %s: which vector calls each hooked function cannot be told (the self-check still sees them fire)\n",
			tp ? "softirq_entry cannot be probed" : "no softirq_entry tracepoint");
		return 0;
	}
	memset(si_hook_seen, 0, sizeof(si_hook_seen));
	static_branch_enable(&si_hook_verifying);
	migrate_disable();
	while (!si_hook_dispatched(deadline)) {
		/* the handlers run unmasked: a spurious raise runs them idle */
		local_bh_disable();
		local_irq_save(flags);
		or_softirq_pending(SI_TIMER_VECTORS);
		local_irq_restore(flags);
		local_bh_enable();
		usleep_range(100, 200);
	}
	migrate_enable();
	static_branch_disable(&si_hook_verifying);
	tracepoint_probe_unregister(tp, si_probe_softirq_entry, NULL);
	tracepoint_synchronize_unregister();

	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++) {
		if (!h->registered || h->checked)
			continue;
		want = h->vec;
		if (swapped)
			want = want == TIMER_SOFTIRQ ? HRTIMER_SOFTIRQ : TIMER_SOFTIRQ;
		seen = READ_ONCE(si_hook_seen[h->vec]);
		if (seen & ~(BIT(want) | BIT(NR_SOFTIRQS))) {
			pr_info("hook %s: fired while the softirq loop ran vectors %#lx, not only %u\n",
				h->name, seen & ~BIT(NR_SOFTIRQS), want);
			*why = "vector check: a hooked function serves another vector";
			return -EINVAL;
		}
		if (!(seen & BIT(h->vec))) {
			pr_info("hook %s: did not fire for softirq vector %u in 2 s (seen %#lx)\n",
				h->name, h->vec, seen);
			*why = "vector check: a hook did not fire for its vector";
			return -EIO;
		}
		pr_info("hook %s: fired for softirq vector %u only (told by the softirq_entry tracepoint)%s\n",
			h->name, h->vec,
			seen & BIT(NR_SOFTIRQS) ? ", and outside the softirq loop" : "");
	}
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

int si_vecmask_arch_init(const char *fail_hook, const char *vector_check,
			 const char **why)
{
	bool swapped = sysfs_streq(vector_check, "swapped");
	bool by_dispatch = swapped || sysfs_streq(vector_check, "dispatch");
	struct si_hook *h;
	int ret;

	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++) {
		ret = si_hook_register(h, fail_hook, by_dispatch);
		if (ret && h->required) {
			si_vecmask_arch_exit();
			*why = h->name;
			return ret;
		}
	}
	for (h = si_hooks; h < si_hooks + ARRAY_SIZE(si_hooks); h++) {
		if (!h->registered || h->checked)
			continue;
		ret = si_hook_check_dispatch(swapped, why);
		if (ret)
			si_vecmask_arch_exit();
		return ret;
	}
	return 0;
}
