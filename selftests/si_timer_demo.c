// SPDX-License-Identifier: GPL-2.0
/*
 * What `make run` shows: the same busy timer callback run once in
 * compatible mode and once soft-interruptible, with a device raising its
 * bottom halves in the middle (si_softint.h), and when they got to run.
 * Prints to the kernel log at load; unload it again afterwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "vecmask.h"
#include "si_softint.h"

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU to run the callback on (default: the last online one)");

static struct si_softint demo;

static const char *demo_when(bool in_cb)
{
	return in_cb ? "while the callback was still busy" :
		       "only after the callback returned";
}

static void demo_show(const char *mode, unsigned int flags)
{
	int ret = si_softint_run(&demo, flags);

	if (ret) {
		pr_warn("%s: the scenario did not complete (%d)\n", mode, ret);
		return;
	}
	pr_info("%s: callback busy from 0 to %lld ms; device raised at %lld ms\n",
		mode, demo.cb_end / NSEC_PER_MSEC, demo.raised / NSEC_PER_MSEC);
	pr_info("%s:   tasklet ran at %lld ms, %s\n", mode,
		demo.tasklet_at / NSEC_PER_MSEC,
		demo_when(demo.tasklet_in_cb));
	pr_info("%s:   NAPI poll ran at %lld ms, %s\n", mode,
		demo.napi_at / NSEC_PER_MSEC,
		demo_when(demo.napi_in_cb));
}

static int __init demo_init(void)
{
	int ret;

	cpu = si_softint_cpu(cpu);
	if (cpu < 0)
		return cpu;
	ret = si_softint_init(&demo, cpu);
	if (ret)
		return ret;
	pr_info("a %u ms si_timer callback on CPU %d; %u ms into it a device interrupt schedules a tasklet and a NAPI poll (%s)\n",
		demo.cb_ms, cpu, demo.raise_ms,
		IS_ENABLED(CONFIG_PREEMPT_RT) ?
		"PREEMPT_RT: from a SCHED_FIFO 50 irq thread" : "from hardirq");
	pr_info("vector mask emulation %s\n", si_vecmask_available() ?
		"active: the timer vectors stay masked during soft-interruptible callbacks" :
		"inactive: soft-interruptible callbacks fall back to compatible mode");
	demo_show("compatible (flags 0)", 0);
	demo_show("SI_TIMER_SOFTINTERRUPTIBLE", SI_TIMER_SOFTINTERRUPTIBLE);
	si_softint_exit(&demo);
	return 0;
}
module_init(demo_init);

static void __exit demo_exit(void)
{
}
module_exit(demo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer: demonstration of soft-interruptible timer callbacks");
