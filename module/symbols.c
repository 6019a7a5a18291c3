// SPDX-License-Identifier: GPL-2.0
/*
 * Resolution of the kernel internals the module uses without an export,
 * once, at load, into the table below. kallsyms_lookup_name() is not
 * exported since 5.7; registering a (disabled) kprobe on it yields its
 * address.
 *
 * Calling it through a pointer is only safe where the indirect call would
 * pass the kernel's checks of branch targets: never under kCFI; under x86's
 * IBT and arm64's BTI only if the function begins with a landing pad, which
 * the arch layer (vecmask_arch.h) looks for before the first call. Where
 * the check fails, functions are resolved by registering a disabled kprobe
 * on each name instead, and data symbols stay unresolved.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include "symbols.h"
#include "vecmask_arch.h"

enum {
	SI_SYM_REQUIRED	= BIT(0),	/* refuse to load without it */
	SI_SYM_DATA	= BIT(1),	/* an object, not a function */
};

static struct si_symbol {
	const char *name;
	unsigned int flags;
	const char *use;
	unsigned long addr;
} si_symbols[] = {
	{ "softirq_vec", SI_SYM_DATA, "to check the vecmask hooks" },
	{ "run_timer_softirq", 0, "to check the TIMER vecmask hook" },
	{ "hrtimer_run_softirq", 0, "to check the HRTIMER vecmask hook" },
};

typedef unsigned long (*si_kallsyms_lookup_name_t)(const char *name);

/* Start of the function containing @addr, if kallsyms says it is @name. */
static unsigned long si_func_start(unsigned long addr, const char *name)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);
	unsigned long off;
	char *slash;

	/* "name+0x4/0x60" */
	sprint_symbol(buf, addr);
	if (strncmp(buf, name, len) || buf[len] != '+')
		return 0;
	slash = strchr(buf + len, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	if (kstrtoul(buf + len + 1, 16, &off))
		return 0;
	return addr - off;
}

/*
 * Address of function @name through a disabled kprobe: registering one does
 * not patch the text. On IBT kernels kprobes place it after the ENDBR.
 */
static unsigned long si_kprobe_lookup(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return si_func_start(addr, name);
}

/* May the function at @func be called through a pointer? */
static bool si_func_callable(unsigned long func, const char **why)
{
	/* kCFI: CFI_CLANG until 6.17, CFI since (CFI_CLANG stays out of autoconf.h) */
	if (IS_ENABLED(CONFIG_CFI_CLANG) || IS_ENABLED(CONFIG_CFI)) {
		*why = "no: kernel checks indirect call targets";
		return false;
	}
	/* IBT, BTI: the arch layer looks at the target's first instruction */
	return si_arch_func_callable(func, why);
}

int si_symbols_init(void)
{
	si_kallsyms_lookup_name_t lookup = NULL;
	const char *why = "no: not found";
	struct si_symbol *s;
	unsigned long kln;
	int ret = 0;

	kln = si_kprobe_lookup("kallsyms_lookup_name");
	if (kln && si_func_callable(kln, &why))
		lookup = (si_kallsyms_lookup_name_t)kln;
	pr_info("symbols: kallsyms_lookup_name %s, callable %s\n",
		kln ? "found by kprobe" : "not found", why);

	for (s = si_symbols; s < si_symbols + ARRAY_SIZE(si_symbols); s++) {
		const char *how = "kallsyms_lookup_name";

		if (lookup) {
			s->addr = lookup(s->name);
		} else if (!(s->flags & SI_SYM_DATA)) {
			s->addr = si_kprobe_lookup(s->name);
			how = "kprobe";
		} else {
			how = "no one: an object needs kallsyms_lookup_name";
		}
		/* sanity: it must be the start of a symbol of that name */
		if (s->addr && si_func_start(s->addr, s->name) != s->addr) {
			pr_warn("symbol %s: %pS does not read back, ignored\n",
				s->name, (void *)s->addr);
			s->addr = 0;
		}
		pr_info("symbol %s (%s): %s, asked %s\n", s->name, s->use,
			s->addr ? "found" : "not found", how);
		if (!s->addr && (s->flags & SI_SYM_REQUIRED))
			ret = -ENOENT;
	}
	if (ret)
		pr_err("required kernel symbols missing, refusing to load\n");
	return ret;
}

/* May the function resolved at @addr be called through a pointer? */
bool si_symbol_callable(unsigned long addr)
{
	const char *why;

	return addr && si_func_callable(addr, &why);
}

/* The address resolved at load for @name, 0 if it was not found. */
unsigned long si_lookup_name(const char *name)
{
	struct si_symbol *s;

	for (s = si_symbols; s < si_symbols + ARRAY_SIZE(si_symbols); s++)
		if (!strcmp(s->name, name))
			return s->addr;
	WARN_ONCE(1, "si_timer: symbol %s is not in symbols.c's table\n", name);
	return 0;
}
