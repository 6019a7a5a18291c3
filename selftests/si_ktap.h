/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output for si_timer test modules (Documentation/testing.md, "Writing a test module").
 * Test modules include it through si_test.h, which adds the checks.
 *
 * A test module lists its cases and runs them from module_init:
 *
 *	SI_CHECKED(t_fires) { ...; SI_CHECK(x == 1, "x = %d", x); }
 *	static const struct si_test tests[] = { SI_TEST(t_fires), ... };
 *	static int __init my_init(void) { return si_ktap_run(tests, ARRAY_SIZE(tests)); }
 *
 * si_ktap_run() prints one KTAP document ("KTAP version 1", "# Subtest:
 * <module>", "1..N", one "ok"/"not ok" line per case) and returns 0, so
 * insmod succeeds whatever the results; the harness then rmmods the module.
 * A case is an int (*)(void) returning SI_PASS, SI_FAIL or SI_SKIP (reason
 * in si_ktap_why); SI_CHECKED() (si_test.h) makes one from a void body.
 * Before triggering a WARN on purpose, a case calls si_ktap_expect_warn()
 * with a substring of the warning's text: the harness then accepts exactly
 * one such WARNING splat, and fails if it never comes before insmod of the
 * module returns (the expectation is the module's, see ktap.py).
 *
 * The lines are printed with pr_info() and must reach the console exactly
 * as KTAP has them: a test module must not define pr_fmt (which would
 * prefix every line) before including this header.
 */
#ifndef _SI_KTAP_H
#define _SI_KTAP_H

#include <linux/completion.h>
#include <linux/err.h>
#include <linux/fs_struct.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/path.h>
#include <linux/printk.h>
#include <linux/sched.h>

enum { SI_PASS, SI_FAIL, SI_SKIP };

struct si_test {
	const char *name;
	int (*fn)(void);
};

#define SI_TEST(fn) { #fn, fn }

/*
 * The harness names the document when it runs a module more than once in
 * a boot (with si_timer loaded with other parameters, selftests/init.sh).
 */
static char *ktap_doc = KBUILD_MODNAME;
module_param(ktap_doc, charp, 0444);
MODULE_PARM_DESC(ktap_doc, "name of the KTAP document (default: the module's name)");

/* Reason shown with SI_SKIP (or with SI_FAIL, as a diagnostic). */
static const char *si_ktap_why;

#define si_ktap_diag(fmt, ...) pr_info("# " fmt "\n", ##__VA_ARGS__)
#define si_ktap_expect_warn(substr) pr_info("# SI_EXPECT_WARN %s\n", substr)

static inline int si_ktap_run(const struct si_test *tests, unsigned int n)
{
	unsigned int i;

	pr_info("KTAP version 1\n");
	pr_info("# Subtest: %s\n", ktap_doc);
	pr_info("1..%u\n", n);
	for (i = 0; i < n; i++) {
		int r;

		si_ktap_why = NULL;
		r = tests[i].fn();
		if (r == SI_SKIP) {
			pr_info("ok %u %s # SKIP %s\n", i + 1, tests[i].name,
				si_ktap_why ?: "");
			continue;
		}
		if (r != SI_PASS && si_ktap_why)
			si_ktap_diag("%s", si_ktap_why);
		pr_info("%sok %u %s\n", r == SI_PASS ? "" : "not ", i + 1,
			tests[i].name);
	}
	return 0;
}

struct si_ktap_cpu_work {
	void (*fn)(void *arg);
	void *arg;
	int cpu;
	struct task_struct *task;
	struct completion done;
};

static int si_ktap_cpu_work_thread(void *data)
{
	struct si_ktap_cpu_work *w = data;

	w->fn(w->arg);
	complete(&w->done);
	/* Stay until kthread_stop(): the caller must not race our exit. */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * Create, but do not start, a kthread bound to @cpu that will run
 * @fn(@arg), at SCHED_FIFO 1 (the executor's class) if @fifo. Start it with
 * wake_up_process(@w->task) (also allowed where sleeping is not), then
 * si_ktap_cpu_work_finish(). Returns 0 or a kthread_create() error.
 */
static inline int si_ktap_cpu_work_create(struct si_ktap_cpu_work *w, int cpu,
					  void (*fn)(void *), void *arg,
					  bool fifo)
{
	*w = (struct si_ktap_cpu_work){ .fn = fn, .arg = arg, .cpu = cpu };
	init_completion(&w->done);
	w->task = kthread_create(si_ktap_cpu_work_thread, w, "si_test/%d", cpu);
	if (IS_ERR(w->task)) {
		si_ktap_diag("kthread_create: %ld", PTR_ERR(w->task));
		return PTR_ERR(w->task);
	}
	kthread_bind(w->task, cpu);
	if (fifo)
		sched_set_fifo_low(w->task);
	return 0;
}

/*
 * Wait for a started work to return and reap its thread. 0, or -ETIMEDOUT
 * if it took longer than @ms (0: no limit); it is waited for even then,
 * since its argument may be on our stack.
 */
static inline int si_ktap_cpu_work_finish(struct si_ktap_cpu_work *w,
					  unsigned int ms)
{
	int ret = 0;

	if (!ms || !wait_for_completion_timeout(&w->done, msecs_to_jiffies(ms))) {
		if (ms) {
			si_ktap_diag("work on CPU %d still running after %u ms, waiting",
				     w->cpu, ms);
			ret = -ETIMEDOUT;
		}
		wait_for_completion(&w->done);
	}
	kthread_stop(w->task);
	return ret;
}

/*
 * Kernel threads of 7.x see an empty root file system (init_fs), no longer
 * the real one: a test running in one opens paths (si_test_open_param())
 * from the root of the process that loaded the module, kept here meanwhile.
 */
static struct path si_ktap_root __maybe_unused;

/*
 * Run @fn(@arg) in a kthread bound to @cpu (see si_ktap_cpu_work_create())
 * and wait for it (see si_ktap_cpu_work_finish()).
 */
static inline int si_ktap_run_on_cpu(int cpu, void (*fn)(void *), void *arg,
				     bool fifo, unsigned int ms)
{
	struct si_ktap_cpu_work w;
	bool root = !(current->flags & PF_KTHREAD) && !si_ktap_root.mnt;
	int ret = si_ktap_cpu_work_create(&w, cpu, fn, arg, fifo);

	if (ret)
		return ret;
	if (root)
		get_fs_root(current->fs, &si_ktap_root);
	wake_up_process(w.task);
	ret = si_ktap_cpu_work_finish(&w, ms);
	if (root) {
		path_put(&si_ktap_root);
		si_ktap_root = (struct path){};
	}
	return ret;
}

#endif /* _SI_KTAP_H */
