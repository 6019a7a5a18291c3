#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inventory of a driver's timer callbacks before opting them in to
SI_TIMER_SOFTINTERRUPTIBLE (Documentation/migration.md, "2. Audit").

Timer callbacks are the functions given to timer_setup()/si_timer_setup()
(also _on_stack), setup_timer(), DEFINE_TIMER()/DEFINE_SI_TIMER(),
__TIMER_INITIALIZER(), a timer's `.function =`, si_hrtimer_setup(), a soft
hrtimer's setup (what si-migrate.sh makes an si_hrtimer), and every
function whose only parameter is a struct timer_list *, struct si_timer *
or struct si_hrtimer *. For each, with
the functions and function-like macros it calls in the same sources, the
audit lists the evidence and a verdict, the worst evidence winning:

  safe             positive evidence only: the callback and what it calls
                   take no lock, or take each with _bh/_irq/_irqsave (or
                   inside local_bh_disable()/local_irq_save()), or take it
                   plainly but it is shared only with timer callbacks (the
                   TIMER vector stays masked while a soft-interruptible
                   callback runs) and process context;
  mask_hrtimer     safe but for soft hrtimer callbacks that share a lock
                   taken plainly or per-CPU data: HRTIMER is masked only
                   with SI_TIMER_MASK_HRTIMER, which the callback then needs;
  review           something the audit cannot clear, with the reason: a
                   lock also taken by code of unknown context (a function
                   handed to a registration the audit does not know counts
                   as possibly softirq), a lock reached through a pointer it
                   cannot resolve, a callback it could not parse, a
                   synchronous cancel of the timer from softirq or
                   BH-disabled code (the -EDEADLK case);
  needs_bh         a lock taken plainly that softirq code also takes, a
                   softirq raised, or the network stack's softirq path
                   called (->ndo_start_xmit()...), with bottom halves enabled;
  keep_compatible  context assumptions (in_softirq()...), per-CPU data
                   shared with softirq code.

Softirq code: NAPI polls, tasklets, packet and protocol receive handlers
(packet_type, net_protocol, rx_handler, encapsulation and socket callbacks),
ndo_start_xmit and qdisc operations, BH workqueue items, USB completions,
block completions, RCU callbacks, CAN receive handlers, and kernel locks the
network softirqs take (a qdisc's root lock, a socket's bh_lock_sock(), a TX
queue's _xmit_lock). Soft hrtimer callbacks (HRTIMER softirq), and
si_hrtimer callbacks in compatible mode which stand for them, make
mask_hrtimer.

It reads C with Coccinelle's parser (scripts/c_facts.py), every #if
branch at once: the function definitions, their parameters and locals with
their types, and every call by a callee's name with its position, so the
call graph, the lock calls (spin_lock(), bh_lock_sock()...), the BH- and
irq-disabling calls, per-CPU accesses, cancels, the registration calls
inside functions, ops-table initializers (.ndo_start_xmit = fn) and
`->function = fn` assignments are the parser's. A lock taken in any branch counts; a
BH-disabling call counts only for the code of the branches holding it.
What no parser gives stays text, and is named so: file-scope declaring
macros (DEFINE_TIMER(), DECLARE_TASKLET(), module_init(),
SIMPLE_DEV_PM_OPS()...), which the parser reads as declarations; the
bodies of #defines (function-like macros are followed as functions),
and so the fields an object-like macro brings to an initializer; an
initializer the parser could not read; calls through a pointer
(->ndo_start_xmit()); guard(cls)(lock); a local pointer's last assignment
and a getter's return (for resolving a lock expression); a definition the
parser skipped (read as text, with its #if's first branch, and said so in
the evidence). Argument texts are the source's, sliced at the parser's
positions. Locks are matched by the last member name of their expression
(&dev->lock and &priv->lock are both "lock", unless the parser types the
two bases as different structs), helpers' parameters and return values are
followed within the sources given (and functions of them handed to a call
that leaves them, as to an iterator), softirq code is that registered in
the callback's directory (--tree-wide: anywhere). Read the evidence.

usage: si-timer-audit.py [--format=text|tsv] [--tree-wide] FILE|DIR...
"""
import argparse
import os
import re
import sys

import c_facts
import kbuild_mod
from c_text import block_end, call_args, closing, split_args, strip_comments

LOCK_CALL = re.compile(
    r"\b(?P<fn>(?:raw_)?spin_(?:lock|trylock)(?:_bh|_irq|_irqsave|_nested|_irqsave_nested|"
    r"_bh_nested)?"
    r"|(?:read|write)_(?:lock|trylock)(?:_bh|_irq|_irqsave)?)\s*\(")
# Kernel helpers that take a lock themselves: helper -> (lock key, plain?).
LOCKER = {
    "bh_lock_sock": ("<sk_lock.slock>", True),
    "bh_lock_sock_nested": ("<sk_lock.slock>", True),
    "netif_tx_lock": ("<_xmit_lock>", True),
    "__netif_tx_lock": ("<_xmit_lock>", True),
    "netif_tx_lock_bh": ("<_xmit_lock>", False),
    "__netif_tx_lock_bh": ("<_xmit_lock>", False),
    "sch_tree_lock": ("<qdisc root lock>", False),
}
# Kernel helpers returning a lock: helper -> lock key.
GETTER = {"qdisc_lock": "<qdisc root lock>", "qdisc_root_lock": "<qdisc root lock>",
          "qdisc_root_sleeping_lock": "<qdisc root lock>"}
# Locks the kernel's own softirq code takes.
KERNEL_SOFTIRQ_LOCK = {
    "<qdisc root lock>": "the NET_TX softirq takes a qdisc's root lock (qdisc_run(), "
                         "__dev_queue_xmit() with bottom halves off)",
    "<sk_lock.slock>": "protocol receive handlers take the socket lock in NET_RX "
                       "(bh_lock_sock())",
    "<_xmit_lock>": "the NET_TX softirq takes a TX queue's _xmit_lock (HARD_TX_LOCK())",
}
GUARD = re.compile(r"\b(?:scoped_)?guard\s*\(\s*(?P<cls>\w+)\s*\)?\s*[(,]")
# This CPU's per-CPU data (per_cpu_ptr(p, cpu) names a CPU: no interleaving
# with a softirq of the running CPU in particular, unless that CPU is the
# running one: PER_CPU_PTR).
PERCPU = re.compile(
    r"\b(?P<op>(?:__)?(?:this_cpu|raw_cpu)_\w+|get_cpu_var|get_cpu_ptr|"
    r"this_cpu_ptr|raw_cpu_ptr)\s*\(")
# per_cpu_ptr(p, cpu) is this CPU's data when cpu is (Tree.this_cpu()).
PER_CPU_PTR = re.compile(r"\b(?P<op>per_cpu_ptr)\s*\(")
SMP_ID = re.compile(r"\b(?:raw_)?smp_processor_id\s*\(|\bget_cpu\s*\(\s*\)")
CONTEXT = re.compile(
    r"\b(in_softirq|in_serving_softirq|in_interrupt|softirq_count|lockdep_assert_in_softirq)\s*\(")
# Calls only softirq (or BH-disabled) code may make: a driver's own call of
# the transmit routine (->ndo_start_xmit(), as f_ncm's timer does), the
# receive entry points NAPI uses.
BH_CALLER = re.compile(r"(?:(?:->|\.)\s*(ndo_start_xmit)|\b(netdev_start_xmit|dev_hard_start_xmit|"
                       r"netif_receive_skb(?:_list|_core)?|napi_gro_receive|napi_gro_frags))\s*\(")
RAISE = re.compile(r"\b(napi_schedule\w*|__napi_schedule\w*|(?:__)?raise_softirq_irqoff)\s*\(")
BH_OFF = re.compile(r"\b(local_bh_disable|local_irq_disable|local_irq_save|spin_lock_bh|"
                    r"spin_lock_irq(?:save)?|read_lock_bh|write_lock_bh|rcu_read_lock_bh|"
                    r"netif_tx_lock_bh|sch_tree_lock)\s*\(")
BH_ON = re.compile(r"\b(local_bh_enable|local_irq_enable|local_irq_restore|spin_unlock_bh|"
                   r"spin_unlock_irq(?:restore)?|read_unlock_bh|write_unlock_bh|"
                   r"rcu_read_unlock_bh|netif_tx_unlock_bh|sch_tree_unlock)\s*\(")
# Only bottom halves (the -EDEADLK case on PREEMPT_RT): irq-off is not BH-off there.
BH_ONLY_OFF = re.compile(r"\b(local_bh_disable|spin_lock_bh|read_lock_bh|write_lock_bh|"
                         r"rcu_read_lock_bh|netif_tx_lock_bh|sch_tree_lock)\s*\(")
BH_ONLY_ON = re.compile(r"\b(local_bh_enable|spin_unlock_bh|read_unlock_bh|write_unlock_bh|"
                        r"rcu_read_unlock_bh|netif_tx_unlock_bh|sch_tree_unlock)\s*\(")
SYNC_CANCEL = re.compile(r"\b(?P<fn>del_timer_sync|timer_delete_sync|del_singleshot_timer_sync|"
                         r"timer_shutdown_sync|si_timer_delete_sync|si_del_timer_sync|"
                         r"si_timer_shutdown_sync|hrtimer_cancel|si_hrtimer_cancel)\s*\(")
TIMER_SETUP = re.compile(
    r"\b(?P<api>(?:si_)?timer_setup(?:_on_stack)?|setup_timer|__setup_timer)\s*\(")
DEFINE_TIMER = re.compile(r"\b(?P<api>DEFINE_(?:SI_)?TIMER)\s*\(\s*(?P<t>\w+)\s*,\s*(?P<fn>\w+)")
TIMER_INIT = re.compile(r"\b(?P<t>\w+)(?:\s*\[[^]=]*\])?\s*=\s*(?P<api>__(?:SI_)?TIMER_INITIALIZER)"
                        r"\s*\(\s*(?P<fn>\w+)")
FUNCTION_ASSIGN = re.compile(r"(?P<lhs>[\w.\->\[\]]+?)\s*(?:\.|->)\s*function\s*=\s*&?(?P<fn>\w+)\s*;")
TIMER_PARAM = re.compile(r"^\s*(?:const\s+)?struct\s+(?:timer_list|si_timer|si_hrtimer)\s*\*\s*\w*\s*$")
HRTIMER_PARAM = re.compile(r"^\s*struct\s+hrtimer\s*\*\s*\w*\s*$")
SI_HRTIMER_SETUP = re.compile(r"\bsi_hrtimer_setup(?:_on_stack)?\s*\(")
# A lock's declared type (the parser's text of it).
LOCK_TYPE = re.compile(r"\s*(?:(?:static|const|volatile)\s+)*(?:raw_)?(?:spinlock_t|rwlock_t)\b")
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case",
            "typeof", "__typeof__", "defined", "__attribute__", "asm", "__asm__"}
# Calls that are no calls into other code, for the list of calls not followed.
NOT_CALLS = {"from_timer", "timer_container_of", "si_timer_container_of", "container_of", "READ_ONCE",
             "WRITE_ONCE", "likely", "unlikely", "min", "max", "min_t", "max_t", "BIT", "jiffies_to_msecs",
             "msecs_to_jiffies", "usecs_to_jiffies", "time_after", "time_before", "time_after_eq",
             "time_before_eq", "round_jiffies", "round_jiffies_up", "ARRAY_SIZE", "WARN_ON", "WARN_ON_ONCE",
             "BUG_ON", "pr_info", "pr_debug", "pr_warn", "pr_err", "dev_dbg", "dev_info", "dev_warn",
             "dev_err", "netdev_dbg", "netdev_info", "netdev_warn", "netdev_err", "get_task_comm",
             "atomic_inc", "atomic_dec", "atomic_read", "atomic_set", "atomic_add", "atomic_sub",
             "test_bit", "set_bit", "clear_bit", "readl", "writel", "ioread32", "iowrite32", "le32_to_cpu",
             "cpu_to_le32", "le16_to_cpu", "cpu_to_le16", "IS_ENABLED", "offsetof", "typeof"}
RANK = {"safe": 0, "mask_hrtimer": 1, "review": 2, "needs_bh": 3, "keep_compatible": 4,
        "kernel_owned": 5}

# Where a function handed to a registration runs. Definite softirq kinds make
# a shared plain lock needs_bh; "timer" kinds (the TIMER vector, and the
# executors) are masked with the callback; "hrtimer" kinds (soft hrtimer
# callbacks: the HRTIMER vector) only with SI_TIMER_MASK_HRTIMER; "process"
# and "hardirq" are no hazard for a plain lock; anything else is "possibly
# softirq".
SOFTIRQ, TIMERVEC, HRTVEC, PROCESS, HARDIRQ, MAYBE = ("softirq", "timer", "hrtimer", "process",
                                                     "hardirq", "maybe")
SOFT_HRT = "soft hrtimer callback (HRTIMER softirq)"
COMPAT_SI_HRT = ("si_hrtimer callback in compatible mode (counted as a soft hrtimer: it stands "
                 "for one)")
# Registration calls: name -> (index of the function argument, kind, what).
REG_CALLS = {
    "netif_napi_add": (2, SOFTIRQ, "NAPI poll"),
    "netif_napi_add_weight": (2, SOFTIRQ, "NAPI poll"),
    "netif_napi_add_tx": (2, SOFTIRQ, "NAPI poll"),
    "netif_napi_add_tx_weight": (2, SOFTIRQ, "NAPI poll"),
    "netif_napi_add_config": (2, SOFTIRQ, "NAPI poll"),
    "netif_threaded_napi_add": (2, SOFTIRQ, "NAPI poll"),
    "tasklet_setup": (1, SOFTIRQ, "tasklet"),
    "tasklet_init": (1, SOFTIRQ, "tasklet"),
    "DECLARE_TASKLET": (1, SOFTIRQ, "tasklet"),
    "DECLARE_TASKLET_DISABLED": (1, SOFTIRQ, "tasklet"),
    "DECLARE_TASKLET_OLD": (1, SOFTIRQ, "tasklet"),
    "netdev_rx_handler_register": (1, SOFTIRQ, "rx_handler (NET_RX softirq)"),
    "can_rx_register": (4, SOFTIRQ, "CAN receive handler (NET_RX softirq)"),
    "usb_fill_bulk_urb": (5, SOFTIRQ, "USB completion"),
    "usb_fill_int_urb": (5, SOFTIRQ, "USB completion"),
    "usb_fill_control_urb": (6, SOFTIRQ, "USB completion"),
    "call_rcu": (1, SOFTIRQ, "RCU callback"),
    "call_rcu_hurry": (1, SOFTIRQ, "RCU callback"),
    "call_srcu": (2, SOFTIRQ, "SRCU callback (bottom halves off)"),
    "hrtimer_setup": (1, None, "hrtimer callback"),
    "hrtimer_setup_on_stack": (1, None, "hrtimer callback"),
    "INIT_WORK": (1, PROCESS, "work item"),
    "INIT_DELAYED_WORK": (1, PROCESS, "delayed work item"),
    "INIT_DEFERRABLE_WORK": (1, PROCESS, "delayed work item"),
    "DECLARE_WORK": (1, PROCESS, "work item"),
    "DECLARE_DELAYED_WORK": (1, PROCESS, "delayed work item"),
    "DECLARE_DEFERRABLE_WORK": (1, PROCESS, "delayed work item"),
    "kthread_run": (0, PROCESS, "kthread"),
    "kthread_create": (0, PROCESS, "kthread"),
    "kthread_create_on_node": (0, PROCESS, "kthread"),
    "kthread_run_on_cpu": (0, PROCESS, "kthread"),
    "module_init": (0, PROCESS, "module_init"),
    "module_exit": (0, PROCESS, "module_exit"),
    "late_initcall": (0, PROCESS, "initcall"),
    "subsys_initcall": (0, PROCESS, "initcall"),
    "device_initcall": (0, PROCESS, "initcall"),
    "fs_initcall": (0, PROCESS, "initcall"),
    "arch_initcall": (0, PROCESS, "initcall"),
    "core_initcall": (0, PROCESS, "initcall"),
    "postcore_initcall": (0, PROCESS, "initcall"),
    "rootfs_initcall": (0, PROCESS, "initcall"),
    "module_param_call": (1, PROCESS, "module parameter"),
    "request_irq": (1, HARDIRQ, "irq handler"),
    "devm_request_irq": (2, HARDIRQ, "irq handler"),
    "request_any_context_irq": (1, HARDIRQ, "irq handler"),
    "request_threaded_irq": (1, HARDIRQ, "irq handler"),
    "devm_request_threaded_irq": (2, HARDIRQ, "irq handler"),
    "on_each_cpu": (0, HARDIRQ, "IPI function"),
    "smp_call_function_single": (1, HARDIRQ, "IPI function"),
    "kref_put": (1, MAYBE, "kref release"),
    "cpuhp_setup_state": (2, PROCESS, "CPU hotplug callback"),
    "cpuhp_setup_state_nocalls": (2, PROCESS, "CPU hotplug callback"),
}
# Calls whose function arguments all run in process context.
PROCESS_CALLS = {"SET_SYSTEM_SLEEP_PM_OPS", "SIMPLE_DEV_PM_OPS", "DEFINE_SIMPLE_DEV_PM_OPS",
                 "SET_RUNTIME_PM_OPS", "RUNTIME_PM_OPS", "SYSTEM_SLEEP_PM_OPS",
                 "SET_LATE_SYSTEM_SLEEP_PM_OPS", "SET_NOIRQ_SYSTEM_SLEEP_PM_OPS",
                 "DEFINE_RUNTIME_DEV_PM_OPS", "pm_ptr", "pm_sleep_ptr", "module_platform_driver_probe",
                 "platform_driver_probe", "DEFINE_SHOW_ATTRIBUTE", "DEVICE_ATTR", "DEVICE_ATTR_RW",
                 "module_param_cb", "kthread_run", "kthread_create", "schedule_on_each_cpu",
                 "wait_event", "wait_event_interruptible", "wait_event_timeout", "debugfs_create_file"}
# Threaded handlers: process context, but with bottom halves off on RT
# (forced threading, irq_forced_thread_fn()): matters for cancels only.
THREADED_IRQ = {"request_threaded_irq": 2, "devm_request_threaded_irq": 3}
# Initializer and assignment fields: field -> (kind, what); field@struct
# entries win over plain field entries.
FIELDS = {
    "func@packet_type": (SOFTIRQ, "packet receive handler (packet_type)"),
    "handler@net_protocol": (SOFTIRQ, "protocol receive handler (net_protocol)"),
    "err_handler@net_protocol": (SOFTIRQ, "protocol error handler (net_protocol)"),
    "handler@inet6_protocol": (SOFTIRQ, "protocol receive handler (inet6_protocol)"),
    "err_handler@inet6_protocol": (SOFTIRQ, "protocol error handler (inet6_protocol)"),
    "handler@xfrm_tunnel": (SOFTIRQ, "protocol receive handler (xfrm_tunnel)"),
    "handler@gre_protocol": (SOFTIRQ, "protocol receive handler (gre_protocol)"),
    "ndo_start_xmit": (SOFTIRQ, "ndo_start_xmit (NET_TX, bottom halves off)"),
    "ndo_select_queue": (SOFTIRQ, "ndo_select_queue (transmit path, bottom halves off)"),
    "ndo_tx_timeout": (TIMERVEC, "ndo_tx_timeout (dev_watchdog() timer)"),
    "start_xmit@ppp_channel_ops": (SOFTIRQ, "ppp channel start_xmit (transmit path)"),
    "enqueue@Qdisc_ops": (SOFTIRQ, "qdisc enqueue (transmit path, root lock held)"),
    "dequeue@Qdisc_ops": (SOFTIRQ, "qdisc dequeue (NET_TX softirq, root lock held)"),
    "peek@Qdisc_ops": (SOFTIRQ, "qdisc peek (NET_TX softirq, root lock held)"),
    "reset@Qdisc_ops": (SOFTIRQ, "qdisc reset (root lock held, bottom halves off)"),
    "classify@tcf_proto_ops": (SOFTIRQ, "classifier (transmit/receive path)"),
    "act@tc_action_ops": (SOFTIRQ, "tc action (transmit/receive path)"),
    "hook@nf_hook_ops": (SOFTIRQ, "netfilter hook"),
    "backlog_rcv": (SOFTIRQ, "socket backlog_rcv (protocol receive)"),
    "encap_rcv": (SOFTIRQ, "UDP encapsulation receive handler"),
    "encap_err_rcv": (SOFTIRQ, "UDP encapsulation error handler"),
    "encap_err_lookup": (SOFTIRQ, "UDP encapsulation error handler"),
    "sk_data_ready": (SOFTIRQ, "socket sk_data_ready (protocol receive)"),
    "sk_write_space": (SOFTIRQ, "socket sk_write_space (protocol receive)"),
    "sk_state_change": (SOFTIRQ, "socket sk_state_change (protocol receive)"),
    "sk_error_report": (SOFTIRQ, "socket sk_error_report (protocol receive)"),
    "complete@blk_mq_ops": (SOFTIRQ, "block completion (BLOCK softirq)"),
    "bi_end_io": (SOFTIRQ, "bio completion (may run in the BLOCK softirq)"),
    "complete": (MAYBE, "completion handler"),
    "rcv@stp_proto": (SOFTIRQ, "LLC/STP receive handler (stp_proto .rcv, NET_RX softirq)"),
    "rcv": (SOFTIRQ, "receive handler"),
    # Process context.
    "probe": (PROCESS, "probe"), "freeze": (PROCESS, "PM"), "thaw": (PROCESS, "PM"),
    "poweroff": (PROCESS, "PM"), "restore": (PROCESS, "PM"),
    "runtime_suspend": (PROCESS, "runtime PM"), "runtime_resume": (PROCESS, "runtime PM"),
    "remove_new": (PROCESS, "remove"),
    "remove": (PROCESS, "remove"), "disconnect": (PROCESS, "disconnect"),
    "shutdown": (PROCESS, "shutdown"), "suspend": (PROCESS, "suspend"), "resume": (PROCESS, "resume"),
    "open": (PROCESS, "open"), "release": (PROCESS, "release"), "read": (PROCESS, "read"),
    "write": (PROCESS, "write"), "unlocked_ioctl": (PROCESS, "ioctl"), "compat_ioctl": (PROCESS, "ioctl"),
    "ioctl": (PROCESS, "ioctl"), "poll": (PROCESS, "poll"), "mmap": (PROCESS, "mmap"),
    "llseek": (PROCESS, "llseek"), "show": (PROCESS, "sysfs show"), "store": (PROCESS, "sysfs store"),
    "ndo_open": (PROCESS, "ndo_open"), "ndo_stop": (PROCESS, "ndo_stop"),
    "ndo_init": (PROCESS, "ndo_init"), "ndo_uninit": (PROCESS, "ndo_uninit"),
    "ndo_change_mtu": (PROCESS, "ndo_change_mtu"), "ndo_eth_ioctl": (PROCESS, "ioctl"),
    "ndo_siocdevprivate": (PROCESS, "ioctl"), "ndo_set_mac_address": (PROCESS, "ndo_set_mac_address"),
    "ndo_do_ioctl": (PROCESS, "ioctl"),
    "priv_destructor": (PROCESS, "net_device priv_destructor (netdev_run_todo(), process context)"),
    # mac80211: .tx runs in the transmit path (NET_TX softirq, or with bottom
    # halves off from ieee80211_xmit()); its TX queue wake-up too.
    "tx@ieee80211_ops": (SOFTIRQ, "mac80211 .tx (transmit path: NET_TX softirq, bottom halves off)"),
    "wake_tx_queue@ieee80211_ops": (SOFTIRQ, "mac80211 .wake_tx_queue (transmit path, bottom halves "
                                             "off)"),
    # Socket calls from system calls: process context.
    "sendmsg": (PROCESS, "sendmsg (system call)"), "recvmsg": (PROCESS, "recvmsg (system call)"),
    "sendmsg@proto_ops": (PROCESS, "proto_ops .sendmsg (system call)"),
    "recvmsg@proto_ops": (PROCESS, "proto_ops .recvmsg (system call)"),
    "peek_len@proto_ops": (PROCESS, "proto_ops .peek_len (vhost, process context)"),
    "connect": (PROCESS, "connect (system call)"), "bind": (PROCESS, "bind (system call)"),
    "listen": (PROCESS, "listen (system call)"), "setsockopt": (PROCESS, "setsockopt"),
    "getsockopt": (PROCESS, "getsockopt"),
    # file_operations: system calls, process context.
    "read_iter@file_operations": (PROCESS, "file_operations .read_iter"),
    "write_iter@file_operations": (PROCESS, "file_operations .write_iter"),
    "fasync@file_operations": (PROCESS, "file_operations .fasync"),
    "flush@file_operations": (PROCESS, "file_operations .flush"),
    "fsync@file_operations": (PROCESS, "file_operations .fsync"),
    "splice_read@file_operations": (PROCESS, "file_operations .splice_read"),
    "splice_write@file_operations": (PROCESS, "file_operations .splice_write"),
    "init@Qdisc_ops": (PROCESS, "qdisc init"), "destroy@Qdisc_ops": (PROCESS, "qdisc destroy"),
    "change@Qdisc_ops": (PROCESS, "qdisc change"), "dump@Qdisc_ops": (PROCESS, "qdisc dump"),
    "dump_stats@Qdisc_ops": (PROCESS, "qdisc dump"),
    "newlink": (PROCESS, "rtnl newlink"), "dellink": (PROCESS, "rtnl dellink"),
    "changelink": (PROCESS, "rtnl changelink"),
    "doit": (PROCESS, "netlink doit"), "dumpit": (PROCESS, "netlink dumpit"),
    "proc_handler": (PROCESS, "sysctl"),
    "hub_control": (PROCESS, "hub_control"), "start": (PROCESS, "start"), "stop": (PROCESS, "stop"),
    "bus_suspend": (PROCESS, "bus_suspend"), "bus_resume": (PROCESS, "bus_resume"),
    "reset": (PROCESS, "reset"), "irq": (HARDIRQ, "irq handler"),
    "urb_enqueue": (MAYBE, "urb_enqueue (any context)"), "urb_dequeue": (MAYBE, "urb_dequeue (any context)"),
}


def directives(text):
    """(start line index, end line index, directive text) of each preprocessor
    directive, continuation lines included."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        if re.match(r"\s*#", lines[i]):
            j = i
            while lines[j].rstrip().endswith("\\") and j + 1 < len(lines):
                j += 1
            out.append((i, j, "\n".join(lines[i:j + 1])))
            i = j + 1
        else:
            i += 1
    return out


def first_branch(text):
    """The text as the compiler of one configuration would see it, roughly:
    directives blanked, #if/#ifdef keep their first branch (#if 0: the
    next), #elif/#else branches blanked. Newlines stay, so lines match.
    Only for functions(), the fallback reader of definitions the parser
    skipped: counting braces needs one branch."""
    lines = text.split("\n")
    stack = []      # per open #if: [keeping this branch now, a branch was kept]
    dirs = {i: (j, d) for i, j, d in directives(text)}
    i = 0
    while i < len(lines):
        if i in dirs:
            j, d = dirs[i]
            m = re.match(r"\s*#\s*(\w+)\s*(.*)", d, re.S)
            word, rest = (m.group(1), m.group(2).strip()) if m else ("", "")
            if word in ("if", "ifdef", "ifndef"):
                keep = not (word == "if" and rest == "0")
                stack.append([keep, keep])
            elif word in ("elif", "else") and stack:
                top = stack[-1]
                top[0] = not top[1]
                top[1] = top[1] or top[0]
            elif word == "endif" and stack:
                stack.pop()
            for k in range(i, j + 1):
                lines[k] = ""
            i = j + 1
            continue
        if stack and not all(s[0] for s in stack):
            lines[i] = ""
        i += 1
    return "\n".join(lines)


def blank_directives(text):
    """The text with every #if branch kept (as Coccinelle's parser reads
    it) and the directive lines blanked. Newlines stay, so lines match."""
    lines = text.split("\n")
    for i, j, _ in directives(text):
        for k in range(i, j + 1):
            lines[k] = ""
    return "\n".join(lines)


def branches(text):
    """For each line (0-based), the #if branches holding it, outermost
    first: ((group, branch index), ...). Two lines of one group's
    different branches are never both compiled."""
    lines = text.split("\n")
    out, stack, group = [()] * len(lines), [], 0
    dirs = {i: (j, d) for i, j, d in directives(text)}
    i = 0
    while i < len(lines):
        if i in dirs:
            j, d = dirs[i]
            m = re.match(r"\s*#\s*(\w+)", d)
            word = m.group(1) if m else ""
            if word in ("if", "ifdef", "ifndef"):
                group += 1
                stack.append((group, 0))
            elif word in ("elif", "else") and stack:
                stack[-1] = (stack[-1][0], stack[-1][1] + 1)
            elif word == "endif" and stack:
                stack.pop()
            for k in range(i, j + 1):
                out[k] = tuple(stack)
            i = j + 1
            continue
        out[i] = tuple(stack)
        i += 1
    return out


def unparen(e):
    """e without the parentheses around all of it."""
    e = e.strip()
    while e.startswith("(") and e.endswith(")"):
        depth = 0
        for i, ch in enumerate(e):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and i < len(e) - 1:
                return e
        e = e[1:-1].strip()
    return e


def statement_start(body, pos):
    """Text of the statement containing pos, up to pos."""
    k = max(body.rfind(";", 0, pos), body.rfind("{", 0, pos), body.rfind("}", 0, pos))
    return body[k + 1:pos]


def member_key(expr):
    """The last member name of a lock or timer expression."""
    expr = expr.strip()
    while expr.startswith(("&", "(", "*")):
        expr = expr[1:].strip()
    while expr.endswith(")"):
        expr = expr[:-1].strip()
    expr = re.sub(r"\[[^]]*\]", "", expr)
    return re.split(r"->|\.", expr)[-1].strip()


def percpu_key(expr):
    """Per-CPU data by its member path without the base variable:
    this_cpu_inc(priv->stats->rx) and this_cpu_ptr(dev->stats) are both
    under "stats"; a global is its own name."""
    e = re.sub(r"\[[^]]*\]", "", expr.strip().lstrip("&*( ").rstrip(") "))
    parts = [p.strip() for p in re.split(r"->|\.", e) if p.strip()]
    if not parts:
        return ()
    return tuple(parts[1:]) if len(parts) > 1 else (parts[0],)


def percpu_match(a, b):
    """The same per-CPU variable or per-CPU pointer member."""
    return bool(a) and bool(b) and a[0] == b[0]


class Call:
    """A call in a function's body: callee, pos (offset in the body), line
    (in the file) and the arguments' texts as the source spells them."""
    __slots__ = ("name", "pos", "line", "args")

    def __init__(self, name, pos, line, args):
        self.name, self.pos, self.line, self.args = name, pos, line, args


class Func:
    """line: where its name is; body_line: where its body (the '{') starts.
    parsed: read by Coccinelle's parser (calls, parameters and local
    types from c_facts); else a function-like macro or a definition the
    parser skipped, read as text. calls: [Call] in order of position."""
    def __init__(self, path, name, line, body, body_line, params, macro=False, pnames=None):
        self.path, self.name, self.line, self.body = path, name, line, body
        self.body_line, self.params, self.macro = body_line, params, macro
        self.pnames = pnames if pnames is not None else params if macro else param_names(params)
        self.parsed = False
        self.vars = {}          # parsed: parameter and local name -> its type's text
        self.calls = []

    def __repr__(self):
        return "%s()" % self.name


def param_names(plist):
    out = []
    for p in split_args(plist):
        m = re.search(r"(\w+)\s*(?:\[[^]]*\])?\s*$", p)
        if m and p.strip() not in ("void", "..."):
            out.append(m.group(1))
    return out


def text_calls(fn):
    """The calls of a body read as text (a macro's, a definition the parser
    skipped): every name followed by a parenthesis."""
    out = []
    for m in CALL.finditer(fn.body):
        if m.group(1) in KEYWORDS:
            continue
        try:
            args = call_args(fn.body, m.end() - 1)
        except ValueError:
            args = []
        out.append(Call(m.group(1), m.start(), fn.body_line + fn.body.count("\n", 0, m.start()), args))
    return out


def functions(path, text):
    """Top-level function definitions of text (first_branch()ed): the
    fallback reader, for definitions Coccinelle's parser skipped."""
    out, depth, last, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "{":
            if depth == 0:
                head = text[last:i]
                m = re.search(r"\b([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*$", head, re.S)
                if m and m.group(1) not in KEYWORDS and "=" not in head.split("(")[0]:
                    j, d = i + 1, 1
                    while j < len(text) and d:
                        d += {"{": 1, "}": -1}.get(text[j], 0)
                        j += 1
                    # The parameters: the first parenthesis after the name.
                    params = call_args(head, m.start(1))
                    line = text.count("\n", 0, last + m.start(1)) + 1
                    fn = Func(path, m.group(1), line, text[i:j], text.count("\n", 0, i) + 1, params)
                    fn.ret = " ".join(head[:m.start(1)].split()[-4:])
                    out.append(fn)
                    i, last = j, j
                    continue
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                last = i + 1
        elif ch == ";" and depth == 0:
            last = i + 1
        i += 1
    return out


def parsed_functions(path, text, facts):
    """The function definitions of path as Coccinelle's parser read them
    (every #if branch): name, parameters and local variables with their
    types, and the calls, each at its exact position. The body is the
    text from the '{' after the parameter list to the last '}' of the
    definition's last line (no brace counting: braces split across #if
    branches are the parser's business)."""
    starts = line_starts(text)
    out = []
    for fs in facts.functions.values():
        for f in fs:
            if f.path != path:
                continue
            o = starts[f.line - 1] + f.col
            if text[o:o + len(f.name)] != f.name:
                continue            # a name a macro made: read as text
            try:
                # the parameter list, then the body's brace (none found
                # from len(text), where an unclosed list ends)
                close = closing(text, text.index("(", o + len(f.name)), "()")
                open_ = text.index("{", close)
            except ValueError:
                continue
            last = starts[f.end] if f.end < len(starts) else len(text)
            close_b = text.rfind("}", open_, last)
            if close_b < 0:
                continue
            body_line = text.count("\n", 0, open_) + 1
            fn = Func(path, f.name, f.line, text[open_:close_b + 1], body_line,
                      ["%s %s" % (t, n) for n, t in f.params], pnames=[n for n, _ in f.params])
            fn.ret, fn.parsed, fn.start, fn.end = f.type, True, f.start, f.end
            fn.vars = {n: t for n, t in f.params}
            for c in f.calls:
                pos = starts[c.line - 1] + c.col - open_
                if not 0 <= pos < len(fn.body) or fn.body[pos:pos + len(c.callee)] != c.callee:
                    continue
                try:
                    args = call_args(fn.body, pos + len(c.callee))
                except ValueError:
                    args = list(c.args)
                if len(args) != len(c.args):
                    # the source's text is split by an #if inside the call:
                    # the parser's texts of the arguments
                    args = [unspace(a) for a in c.args]
                fn.calls.append(Call(c.callee, pos, c.line, args))
            out.append(fn)
    for d in facts.decls:
        if d.path == path and d.function:
            for fn in out:
                if fn.name == d.function and fn.start <= d.line <= fn.end:
                    fn.vars.setdefault(d.name, d.type)
    return sorted(out, key=lambda fn: fn.start)


def unspace(arg):
    """A Coccinelle argument text ("& p -> lock") as C is written (&p->lock)."""
    a = re.sub(r"\s*(->|\.|\[|\]|\(|\))\s*", r"\1", arg)
    return re.sub(r"([&*!~])\s+(?=[\w(])", r"\1", a).strip()


def line_starts(text):
    out, i = [0], text.find("\n")
    while i >= 0:
        out.append(i + 1)
        i = text.find("\n", i + 1)
    return out


def macros(path, text):
    """Function-like #defines, as functions the callers' calls lead to."""
    out = []
    for i, j, d in directives(text):
        m = re.match(r"\s*#\s*define\s+(\w+)\(([^)]*)\)(.*)", d, re.S)
        if m:
            body = " " * (len(d) - len(m.group(3))) + m.group(3).replace("\\\n", " \n")
            out.append(Func(path, m.group(1), i + 1, "{" + body[1:] + "}", i + 1,
                            [p.strip() for p in m.group(2).split(",") if p.strip()], macro=True))
    return out


class Tree:
    def __init__(self, paths):
        # The unit is the module: every source file of the module(s) each
        # path belongs to, as its directory's Kbuild/Makefile lists them
        # (scripts/kbuild_mod.py); the directory, whole, where none does.
        self.files, self.units, self.unit = {}, kbuild_mod.modules(paths), {}
        bases = [os.path.normpath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths]
        for i, mod in enumerate(self.units):
            for f in mod.files:
                if f not in self.files:
                    base = next((b for b in bases if not os.path.relpath(f, b).startswith("..")),
                                bases[0])
                    self.files[f] = os.path.relpath(f, base)
                self.unit.setdefault(f, set()).add(i)
        self.bases = bases
        self.raw = {f: strip_comments(open(f, errors="replace").read()) for f in self.files}
        # Every #if branch, as the parser reads them: a lock taken in any
        # branch counts.
        self.text = {f: blank_directives(t) for f, t in self.raw.items()}
        self.branch = {f: branches(t) for f, t in self.raw.items()}
        self.facts = c_facts.parse(list(self.files))
        self.defs = {}      # name -> [Func], static functions may repeat across files
        self.skipped = []   # definitions the parser skipped, read as text
        self.scope_calls = {}
        self.unparsed = {}
        for f in self.files:
            parsed = parsed_functions(f, self.text[f], self.facts)
            names = set(fn.name for fn in parsed)
            spans = [(fn.start, fn.end) for fn in parsed]
            skipped = [fn for fn in functions(f, first_branch(self.raw[f]))
                       if fn.name not in names and not any(a <= fn.line <= b for a, b in spans)]
            ms = macros(f, self.raw[f])
            for fn in skipped + ms:
                fn.calls = text_calls(fn)
            self.skipped.extend(skipped)
            for fn in parsed + skipped + ms:
                self.defs.setdefault(fn.name, []).append(fn)
            # File scope, as text: declaring macros (DECLARE_TASKLET(),
            # module_init(), SIMPLE_DEV_PM_OPS()...), which the parser
            # reads as declarations, and the bodies of #defines.
            lines = self.raw[f].split("\n")
            for fn in parsed:
                for k in range(fn.start - 1, min(fn.end, len(lines))):
                    lines[k] = ""
            for fn in skipped:
                for k in range(fn.line - 1, min(fn.body_line + fn.body.count("\n"), len(lines))):
                    lines[k] = ""
            scope = Func(f, "<file scope>", 1, "\n".join(lines), 1, [])
            self.scope_calls[f] = text_calls(scope)
            # What the parser never reads: #define bodies and the
            # definitions it skipped (read as text for fields given a name).
            keep = set(k for i, j, _ in directives(self.raw[f]) for k in range(i, j + 1))
            for fn in skipped:
                keep.update(range(fn.line - 1, fn.body_line + fn.body.count("\n")))
            self.unparsed[f] = "\n".join(x if k in keep else "" for k, x in
                                          enumerate(self.raw[f].split("\n")))
        self.walks = {}
        self.consts = {}        # object-like macros: name -> value
        for t in self.raw.values():
            for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n\\]+?)[ \t]*$", t, re.M):
                self.consts.setdefault(m.group(1), m.group(2))
        self.macro_text = {}    # object-like macros, continuation lines included
        for t in self.raw.values():
            for _, _, d in directives(t):
                m = re.match(r"\s*#\s*define\s+(\w+)(?!\()\s(.*)", d, re.S)
                if m:
                    self.macro_text.setdefault(m.group(1), m.group(2).replace("\\\n", " "))
        # Locks defined at file scope: the parser's declarations, and the
        # declaring macros (text: the parser reads no macro's meaning).
        self.globals = set()
        for t in self.raw.values():
            self.globals.update(re.findall(r"\bDEFINE_(?:RAW_)?(?:SPINLOCK|RWLOCK)\s*\(\s*(\w+)", t))
        for d in self.facts.decls:
            if d.function is None and LOCK_TYPE.match(d.type) and "*" not in d.type:
                self.globals.add(d.name)
        # Locks declared in the files read: globals and members, by name.
        self.lock_decls = set(self.globals)
        self.lock_decls.update(d.name for d in self.facts.decls if LOCK_TYPE.match(d.type))
        self.lock_decls.update(m[4] for m in self.facts.members if LOCK_TYPE.match(m[5]))

    def file_calls(self, f):
        """Every call of file f: those of its functions (the parser's, where
        it read them) and those at file scope and in #defines (text)."""
        out = []
        for fs in self.defs.values():
            for fn in fs:
                if fn.path == f and not fn.macro:
                    out.extend(fn.calls)
        # in the order of the file, as a reader meets them
        return sorted(out + self.scope_calls[f], key=lambda c: c.line)

    def bh_disabled_at(self, fn, pos, only_bh=False):
        """Bottom halves (or interrupts; only_bh: bottom halves only) are off
        at pos in fn: more disabling calls than enabling ones before it. A
        disabling call counts only in a branch of #if holding pos (in
        another branch it may not be compiled); an enabling one in any."""
        off, on = (BH_ONLY_OFF, BH_ONLY_ON) if only_bh else (BH_OFF, BH_ON)
        br = self.branch.get(fn.path, [])

        def at(line):
            return br[line - 1] if 0 < line <= len(br) else ()
        here = at(fn.body_line + fn.body.count("\n", 0, pos))
        n = 0
        for c in fn.calls:
            if c.pos >= pos:
                continue
            if off.match(c.name + "(") and here[:len(at(c.line))] == at(c.line):
                n += 1
            elif on.match(c.name + "("):
                n -= 1
        return n > 0

    def kernel_owned(self, exprs):
        """Why the timers set up with a callback are the kernel's (a
        delayed_work's timer, a timer_list member no file read declares),
        or None when one of them is the driver's."""
        if not exprs:
            return None
        own = getattr(self, "_own_timers", None)
        if own is None:
            # The timers the files read declare: members and variables as
            # the parser reads them (the converter's parse: what it retypes),
            # and DEFINE_TIMER() (a declaring macro: text).
            own = self._own_timers = set()
            timer = re.compile(r"\s*(?:(?:static|const|volatile)\s+)*struct\s+"
                               r"(?:timer_list|si_timer|hrtimer|si_hrtimer)\b")
            own.update(m[4] for m in self.facts.members if timer.match(m[5]))
            own.update(d.name for d in self.facts.decls if timer.match(d.type))
            for t in self.raw.values():
                own.update(re.findall(r"\bDEFINE_(?:SI_)?TIMER\s*\(\s*(\w+)", t))
        why = []
        for e in exprs:
            e = " ".join(e.split())
            ps = [x for x in re.split(r"->|\.", re.sub(r"\[[^]]*\]", "", e.lstrip("&*( ").rstrip(") ")))
                  if x.strip()]
            if len(ps) < 2:
                return None             # a variable, a parameter: not known to be the kernel's
            if ps[-1].strip() == "timer" and re.search(r"work$", ps[-2].strip()):
                why.append("%s is a delayed_work's timer, the workqueue's" % e)
            elif ps[-1].strip() not in own:
                why.append("%s: no file read declares a timer %s (a member of a kernel struct: "
                           "struct sock's sk_timer, struct usb_hcd's rh_timer...)" % (e, ps[-1].strip()))
            else:
                return None
        return "; ".join(why)

    def same_unit(self, a, b):
        """Files a and b are of one module, or of one directory."""
        return os.path.dirname(a) == os.path.dirname(b) or \
            bool(self.unit.get(a, set()) & self.unit.get(b, set()))

    def read(self, path):
        """What the audit read for the callback of file path."""
        mods = [self.units[i] for i in sorted(self.unit.get(path, ()))]
        return "; ".join(m.describe(self.rel) for m in mods)

    def missing(self, path):
        return sorted(set(x for i in self.unit.get(path, ()) for x in self.units[i].missing))

    def rel(self, f):
        """f relative to the kernel tree it is in (where MAINTAINERS is),
        else to the current directory."""
        d = os.path.dirname(os.path.abspath(f))
        while d != os.path.dirname(d):
            if os.path.isfile(os.path.join(d, "MAINTAINERS")) and os.path.isdir(os.path.join(d, "kernel")):
                return os.path.relpath(f, d)
            d = os.path.dirname(d)
        return os.path.relpath(f)

    def func(self, name, path=None):
        """The definition of name, preferring the one in file path, and a
        function over a macro."""
        defs = self.defs.get(name, [])
        for want in ((lambda d: d.path == path and not d.macro), (lambda d: not d.macro),
                     (lambda d: d.path == path), (lambda d: True)):
            for d in defs:
                if want(d):
                    return d
        return None

    def line(self, fn, pos):
        return fn.body_line + fn.body.count("\n", 0, pos)

    def where(self, fn, pos):
        return "%s:%d" % (self.files[fn.path], self.line(fn, pos))

    def walk(self, name, path, limit=400):
        """The function and every function or macro of the tree it calls,
        directly or not, each with the binding of its parameters to the
        caller's arguments (for locks handed to helpers): [(Func, binding)].
        A binding's "@off" is set where the call was made with bottom halves
        or interrupts off (a caller's spin_lock_irqsave(), say)."""
        if (name, path) in self.walks:
            return self.walks[(name, path)]
        out, seen, todo = [], set(), [(name, path, {})]
        while todo and len(out) < limit:
            n, p, bind = todo.pop(0)
            fn = self.func(n, p)
            if fn is None:
                continue
            key = (id(fn), tuple(sorted(bind.items())))
            if key in seen or sum(f is fn for f, _ in out) >= 4:
                continue
            seen.add(key)
            out.append((fn, bind))
            for call in fn.calls:
                c = call.name
                if c not in self.defs and c not in KEYWORDS:
                    todo.extend(self.handed(fn, bind, call))
                if c not in self.defs or c in KEYWORDS or c == fn.name:
                    continue
                callee = self.func(c, fn.path)
                b = {}
                for pn, a in zip(callee.pnames if callee else [], call.args):
                    b[pn] = self.resolve_expr(fn, bind, a, call.pos)
                if bind.get("@off") or self.bh_disabled_at(fn, call.pos):
                    b["@off"] = "1"
                todo.append((c, fn.path, b))
        self.walks[(name, path)] = out
        return out

    def handed(self, fn, bind, call):
        """The functions of the tree that fn hands to c(), a call leaving
        the sources that registers nothing the audit knows: an iterator such
        as ieee80211_iterate_active_interfaces_atomic() runs them there and
        then, in the caller's context, so the walk follows them."""
        c = call.name
        if c in REG_CALLS or c in THREADED_IRQ or c in PROCESS_CALLS or \
                TIMER_SETUP.match(c + "(") or c.startswith(("hrtimer_", "si_hrtimer_")):
            return []
        off = {"@off": "1"} if bind.get("@off") or self.bh_disabled_at(fn, call.pos) else {}
        out = []
        for a in call.args:
            a = a.lstrip("&").strip()
            d = self.func(a, fn.path) if re.fullmatch(r"\w+", a) and a != fn.name else None
            if d is not None and not d.macro:
                out.append((a, fn.path, dict(off)))
        return out

    def reach(self, name, path):
        return [f for f, _ in self.walk(name, path)]

    def resolve_expr(self, fn, bind, expr, pos, depth=0):
        """A lock (or timer) expression in fn's body at pos, with local
        pointers, parameters and getters replaced by what they stand for."""
        e = expr.strip()
        bare = unparen(e)
        if depth > 6:
            return e
        m = re.fullmatch(r"(\w+)\s*\((.*)\)", bare, re.S)
        if m:                                   # a getter: qdisc_lock(q), foo_lock(p)
            g = m.group(1)
            if g in GETTER:
                return GETTER[g]
            gf = self.func(g, fn.path)
            if gf is not None:
                r = re.search(r"\breturn\s+([^;]+);", gf.body)
                if r:
                    args = split_args(m.group(2))
                    b = {pn: self.resolve_expr(fn, bind, a, pos, depth + 1)
                         for pn, a in zip(gf.pnames, args)}
                    return self.resolve_expr(gf, b, r.group(1), r.start(), depth + 1)
            return e
        m = re.fullmatch(r"(&?\s*)(\w+)((?:\s*(?:->|\.)\s*\w+|\[[^]]*\])*)", bare)
        if not m:
            return e
        amp, base, rest = m.groups()
        if base in bind:
            b = bind[base]
            if not rest:
                return b
            return b + rest if not amp else "&" + b.lstrip("&") + rest
        if not rest and not amp:
            # A local pointer: its last assignment before pos.
            hits = list(re.finditer(r"(?<![\w>.])\*?\s*%s\s*=(?!=)\s*([^;]+);" % re.escape(base),
                                    fn.body[:pos]))
            if hits:
                r = self.resolve_expr(fn, bind, hits[-1].group(1), hits[-1].start(), depth + 1)
                # Only what names a lock: not from_timer(), kzalloc()...
                if r.startswith("<") or not re.search(r"\w\s*\(", r):
                    return r
        return e

    @staticmethod
    def base_type(fn, expr):
        """The struct type of a one-level member expression's base
        (&ohci->lock: struct ohci_hcd), where fn declares it (the parser's
        type of the parameter or local); else None."""
        m = re.fullmatch(r"&?\s*(\w+)\s*(?:->|\.)\s*\w+", unparen(expr))
        if not m:
            return None
        if fn.parsed:
            return c_facts.type_struct(fn.vars.get(m.group(1), ""))
        d = re.search(r"\bstruct\s+(\w+)\s*\*?\s*(?:const\s+)?%s\b" % re.escape(m.group(1)),
                      " ".join(fn.params) + " " + fn.body)
        return d.group(1) if d else None

    def lock_key(self, fn, bind, expr, pos):
        """(key, resolved expression, resolved?) of a lock expression."""
        r = self.resolve_expr(fn, bind, expr, pos)
        if r.startswith("<"):
            return r, r, True
        bare = unparen(r)
        if re.search(r"(?:->|\.)\s*q\s*\.\s*lock$", bare):
            return "<qdisc root lock>", r, True
        if re.search(r"sk_lock\s*\.\s*slock$", bare):
            return "<sk_lock.slock>", r, True
        if re.search(r"_xmit_lock$", bare):
            return "<_xmit_lock>", r, True
        if re.fullmatch(r"&\s*\w+", bare):
            return bare.lstrip("& "), r, True
        if re.fullmatch(r"\w+", bare):
            # A pointer never resolved, unless it names a global lock.
            return bare, r, bare in self.globals
        if re.search(r"(->|\.)", bare) and not re.search(r"\w\s*\(", bare):
            return member_key(bare), r, True
        return bare, r, False

    def locks(self, name, path):
        """Each lock taken: dict(key, expr, fn, call, plain, where, resolved)."""
        out = []
        for fn, bind in self.walk(name, path):
            for c in fn.calls:
                if LOCK_CALL.match(c.name + "(") and c.args:
                    key, r, ok = self.lock_key(fn, bind, c.args[0], c.pos)
                    plain = not re.search(r"_bh|_irq", c.name) and not bind.get("@off") and \
                        not self.bh_disabled_at(fn, c.pos)
                    out.append(dict(key=key, expr=c.args[0] if r == c.args[0] else
                                    "%s (%s)" % (c.args[0], r),
                                    fn=fn, call=c.name, plain=plain, where=self.where(fn, c.pos),
                                    resolved=ok, type=self.base_type(fn, r)))
                elif c.name in LOCKER and c.name not in self.defs:
                    key, pl = LOCKER[c.name]
                    out.append(dict(key=key, expr="%s(%s)" % (c.name, ", ".join(c.args)), fn=fn,
                                    call=c.name,
                                    plain=pl and not bind.get("@off") and
                                    not self.bh_disabled_at(fn, c.pos),
                                    where=self.where(fn, c.pos), resolved=True, type=None))
            # guard(cls)(lock): the lock is the argument of a call whose
            # callee is a call; the parser names no such callee (text).
            for m in GUARD.finditer(fn.body):
                cls = m.group("cls")
                if not re.search(r"spinlock|rwlock|read_lock|write_lock", cls):
                    continue
                try:
                    # guard(cls)(lock), scoped_guard(cls, lock): the lock is the last argument
                    args = call_args(fn.body, m.start() if m.group(0).endswith(",") else m.end() - 1)
                except ValueError:
                    continue
                key, r, ok = self.lock_key(fn, bind, args[-1], m.start())
                plain = not re.search(r"_bh|_irq", cls) and not bind.get("@off") and \
                    not self.bh_disabled_at(fn, m.start())
                out.append(dict(key=key, expr=args[-1], fn=fn, call="guard(%s)" % cls, plain=plain,
                                where=self.where(fn, m.start()), resolved=ok,
                                type=self.base_type(fn, r)))
        return out

    def percpu(self, name, path):
        out = []
        reach = self.reach(name, path)
        # A CPU number handed down a path that reads smp_processor_id(): this CPU's.
        cpu_here = any(SMP_ID.match("%s(%s)" % (c.name, ", ".join(c.args))) for f in reach
                       for c in f.calls)
        for fn in reach:
            for c in fn.calls:
                if PERCPU.match(c.name + "(") and c.args:
                    out.append((percpu_key(c.args[0]), c.name, c.args[0], fn, self.where(fn, c.pos)))
                elif PER_CPU_PTR.match(c.name + "(") and len(c.args) == 2 and \
                        self.this_cpu(fn, c.args[1], c.pos, cpu_here):
                    out.append((percpu_key(c.args[0]), c.name, ", ".join(c.args), fn,
                                self.where(fn, c.pos)))
        return out

    @staticmethod
    def this_cpu(fn, cpu, pos, cpu_here):
        """The CPU argument of per_cpu_ptr() at pos in fn is the running
        CPU's: smp_processor_id() itself, a local set from it (through a
        helper such as a CPU-to-queue map, too), or a parameter of fn on a
        path that reads it."""
        cpu = unparen(cpu)
        if SMP_ID.search(cpu):
            return True
        if not re.fullmatch(r"\w+", cpu):
            return False
        sets = list(re.finditer(r"(?<![\w>.])%s\s*=(?!=)\s*([^;]+);" % re.escape(cpu), fn.body[:pos]))
        if sets:
            return bool(SMP_ID.search(sets[-1].group(1)))
        return cpu in fn.pnames and cpu_here

    def matches(self, name, path, rx):
        out = []
        for fn in self.reach(name, path):
            for c in fn.calls:
                m = rx.match(c.name + "(")
                if m:
                    out.append((m.group(1), fn, self.where(fn, c.pos)))
        return out

    # --- Registrations -------------------------------------------------
    @staticmethod
    def hrtimer_modes(calls):
        """Member key of an hrtimer -> its mode text (hrtimer_init/setup)."""
        modes = {}
        for c in calls:
            if re.fullmatch(r"hrtimer_(?:init|setup)(?:_on_stack)?", c.name) and c.args:
                modes[member_key(c.args[0])] = c.args[-1]
        return modes

    def hrtimer_kind(self, mode, api):
        """(kind, what) of the callback of an hrtimer set up with mode:
        HARD or without SOFT runs in hardirq context (off PREEMPT_RT: on RT
        in the softirq, where a lock cannot deadlock); a mode the audit
        cannot read (a variable, say) may be SOFT."""
        m = " ".join((mode or "").split())
        for _ in range(4):          # object-like macros of the sources
            m = re.sub(r"\b\w+\b", lambda w: self.consts.get(w.group(0), w.group(0)), m)
        if re.search(r"_HARD\b", m):
            return HARDIRQ, "hard hrtimer callback (%s())" % api
        if "SOFT" in m:
            return HRTVEC, "%s (%s())" % (SOFT_HRT, api)
        if re.fullmatch(r"\(?HRTIMER_MODE_\w+\)?", m):
            return HARDIRQ, "hrtimer callback, hardirq context (%s())" % api
        return MAYBE, ("hrtimer callback whose mode (%s) the audit cannot read: possibly a soft "
                       "hrtimer (%s())" % (m or "unknown", api))

    def registrations(self):
        """Timer callbacks {(name, file): (api, flags, timer key)}, handlers
        {(name, file): (kind, what)} and the threaded irq handlers."""
        timers, handlers, threaded, unknown = {}, {}, set(), {}
        self.timer_exprs = {}       # (callback, file) -> the timers set up with it

        def add(fn, f, kind, what):
            old = handlers.get((fn, f))
            if old is None or RANK_KIND[kind] > RANK_KIND[old[0]]:
                handlers[(fn, f)] = (kind, what)

        for f, t in self.raw.items():
            # The calls: the parser's in the functions it read, text at
            # file scope (declaring macros) and in #defines.
            calls = self.file_calls(f)
            for c in calls:
                args = c.args
                if TIMER_SETUP.match(c.name + "(") and len(args) >= 2 and \
                        re.fullmatch(r"\w+", args[1]) and args[1] != "NULL":
                    flags = args[2] if len(args) > 2 and "timer_setup" in c.name else ""
                    timers.setdefault((args[1], f), (c.name, flags, member_key(args[0])))
                    self.timer_exprs.setdefault((args[1], f), []).append(args[0])
            for m in DEFINE_TIMER.finditer(t):
                timers.setdefault((m.group("fn"), f), (m.group("api"), "", m.group("t")))
            for m in TIMER_INIT.finditer(t):
                args = call_args(t, m.start("api"))
                timers.setdefault((m.group("fn"), f), (m.group("api"), args[1] if len(args) > 1 else "",
                                                       m.group("t")))
            modes = self.hrtimer_modes(calls)
            # Names given to fields: the parser's initializers and
            # assignments; text where it never reads (#define bodies,
            # definitions it skipped).
            fields = sorted((fl for fl in self.facts.fields if fl.path == f),
                            key=lambda fl: (fl.line, fl.col))
            assigns = [(unspace(fl.lhs), fl.value) for fl in fields
                       if fl.field == "function" and fl.lhs is not None]
            assigns += [(m.group("lhs"), m.group("fn")) for m in FUNCTION_ASSIGN.finditer(self.unparsed[f])]
            for lhs, fn in assigns:
                key = member_key(lhs)
                d = self.func(fn, f)
                if key in modes or (d is not None and d.params and HRTIMER_PARAM.match(d.params[0])):
                    kind, what = self.hrtimer_kind(modes.get(key), "hrtimer_init")
                    add(fn, f, kind, what)
                    if kind == HRTVEC:
                        # what si-migrate.sh makes an si_hrtimer: audited too
                        timers.setdefault((fn, f), ("hrtimer_init SOFT", "", key))
                elif (d is not None and d.params and TIMER_PARAM.match(d.params[0])) or \
                        (d is None and "timer" in lhs and "hrtimer" not in lhs):
                    timers.setdefault((fn, f), (".function =", "", key))
                    self.timer_exprs.setdefault((fn, f), []).append(lhs)
            for c in calls:
                reg, args = c.name, c.args
                if reg not in REG_CALLS and reg not in THREADED_IRQ:
                    continue
                if reg in THREADED_IRQ and len(args) > THREADED_IRQ[reg]:
                    th = args[THREADED_IRQ[reg]].lstrip("&")
                    if re.fullmatch(r"\w+", th):
                        threaded.add((th, f))
                        add(th, f, PROCESS, "threaded irq handler")
                if reg not in REG_CALLS:
                    continue
                idx, kind, what = REG_CALLS[reg]
                if len(args) <= idx or not re.fullmatch(r"&?\w+", args[idx]):
                    continue
                fn = args[idx].lstrip("&")
                if reg.startswith("hrtimer_setup"):
                    kind, what = self.hrtimer_kind(args[-1], reg)
                    add(fn, f, kind, what)
                    if kind == HRTVEC:
                        timers.setdefault((fn, f), ("%s SOFT" % reg, "", member_key(args[0])))
                    continue
                if reg in ("request_irq", "devm_request_irq"):
                    # Forced-threaded on PREEMPT_RT, with bottom halves off.
                    threaded.add((fn, f))
                add(fn, f, kind, "%s (%s())" % (what, reg))
            for c in calls:
                args = c.args
                if not SI_HRTIMER_SETUP.match(c.name + "(") or len(args) < 5 or not re.fullmatch(r"&?\w+", args[1]):
                    continue
                fn = args[1].lstrip("&")
                timers.setdefault((fn, f), ("si_hrtimer_setup", args[4], member_key(args[0])))
                if "SI_TIMER_SOFTINTERRUPTIBLE" not in args[4]:
                    add(fn, f, HRTVEC, "%s (si_hrtimer_setup())" % COMPAT_SI_HRT)
            # Initializers of known structures (the parser's), then any
            # .field = fn.
            for fl in fields:
                if fl.struct and fl.lhs is None:
                    self._field(fl.field, fl.struct, fl.value, f, add, unknown)
            # Fields an object-like macro brings (mac80211_hwsim's
            # HWSIM_COMMON_OPS): the parser never sees a macro's body, so
            # the text finds the initializers naming one, and the fields.
            # An initializer the parser could not read (mac80211_hwsim's,
            # where the macro has no comma after it) is read as text whole.
            for m in re.finditer(r"\bstruct\s+(\w+)\s+[\w\s\[\]]*?=\s*\{", t):
                end = block_end(t, m.end() - 1)
                body = t[m.end():end]
                first, last = t.count("\n", 0, m.start()) + 1, t.count("\n", 0, end) + 1
                read = any(fl.struct == m.group(1) and first <= fl.line <= last for fl in fields)
                brought = "".join(" " + self.macro_text[w] + "\n" for w in set(re.findall(r"\b[A-Z]\w+\b", body))
                                  if w in self.macro_text)
                for fm in re.finditer(r"\.\s*(\w+)\s*=\s*&?\s*(\w+)\s*[,}\n]",
                                      brought if read else body + brought):
                    self._field(fm.group(1), m.group(1), fm.group(2), f, add, unknown)
            rest = [(fl.field, fl.value) for fl in fields if not fl.struct or fl.lhs is not None]
            rest += [(fm.group(1), fm.group(2)) for fm in
                     re.finditer(r"(?:\.|->)\s*(\w+)\s*=\s*&?\s*(\w+)\s*[,;}]", self.unparsed[f])]
            for field, fn in rest:
                if (fn, f) not in handlers and (fn, f) not in unknown:
                    self._field(field, None, fn, f, add, unknown)
            # BH workqueues: the work items queued on system_bh*_wq or a WQ_BH queue.
            bhwq = {"system_bh_wq", "system_bh_highpri_wq"}
            bhwq.update(member_key(x) for x in re.findall(
                r"([\w.\->]+)\s*=\s*alloc_workqueue\s*\([^;]*\bWQ_BH\b", t))
            works = {}
            for c in calls:
                if c.name in ("INIT_WORK", "DECLARE_WORK") and len(c.args) > 1:
                    works.setdefault(member_key(c.args[0]), []).append(c.args[1].lstrip("&"))
            for c in calls:
                if c.name not in ("queue_work", "queue_work_on"):
                    continue
                args = c.args[1:] if c.name == "queue_work_on" else c.args
                if len(args) > 1 and member_key(args[0]) in bhwq:
                    for fn in works.get(member_key(args[1]), []):
                        add(fn, f, SOFTIRQ, "BH workqueue item (queue_work(%s))" % args[0])
        # A function handed to something the audit does not know.
        for (fn, f), what in unknown.items():
            if (fn, f) not in handlers and (fn, f) not in timers:
                add(fn, f, MAYBE, what)
        # Functions only referenced as a value (in a call's arguments).
        for f in self.files:
            for c in self.file_calls(f):
                reg = c.name
                if reg in PROCESS_CALLS:
                    for a in c.args:
                        a = a.lstrip("&").strip()
                        if re.fullmatch(r"\w+", a) and self.func(a, f) is not None:
                            add(a, f, PROCESS, "%s()" % reg)
                    continue
                if reg in KEYWORDS or reg in REG_CALLS or reg in THREADED_IRQ or \
                        TIMER_SETUP.match(reg + "(") or reg in ("sizeof",):
                    continue
                for a in c.args:
                    a = a.lstrip("&").strip()
                    d = self.func(a, f) if re.fullmatch(r"\w+", a) else None
                    if d is None or d.macro or (a, f) in handlers or (a, f) in timers:
                        continue
                    if any(k == a for k, _ in timers):
                        continue
                    add(a, f, MAYBE, "handed to %s() (not known to the audit: possibly softirq)"
                        % reg)
        return timers, handlers, threaded

    def _field(self, field, struct, fn, f, add, unknown):
        if field == "function":
            return
        d = self.func(fn, f)
        if d is None or d.macro:
            return
        if d.params and TIMER_PARAM.match(d.params[0]):
            return
        spec = FIELDS.get("%s@%s" % (field, struct)) if struct else None
        spec = spec or FIELDS.get(field)
        if spec:
            add(fn, f, spec[0], "%s (.%s)" % (spec[1], field))
        else:
            unknown.setdefault((fn, f), ".%s%s (not known to the audit: possibly softirq)"
                               % (field, " of struct %s" % struct if struct else ""))


RANK_KIND = {PROCESS: 0, HARDIRQ: 1, TIMERVEC: 2, HRTVEC: 3, MAYBE: 4, SOFTIRQ: 5}



def callback_timer(tree, fcb, tkey):
    """The type of the structure holding the timer of callback @fcb, and
    the timer's member name (@tkey, if the setup named it already), from
    the callback's from_timer()/container_of()."""
    ttype = None
    for c in fcb.calls:
        a = [x.strip() for x in c.args]
        if c.name in ("from_timer", "timer_container_of", "si_timer_container_of") and \
                len(a) == 3 and re.fullmatch(r"\w+", a[0]) and re.fullmatch(r"\w+", a[2]):
            ttype, tkey = tree.base_type(fcb, "%s->%s" % (a[0], a[2])), tkey or a[2]
            break
    for c in fcb.calls:
        a = [x.strip() for x in c.args]
        m = re.fullmatch(r"struct\s+(\w+)", a[1]) if len(a) == 3 else None
        if c.name == "container_of" and m and re.fullmatch(r"\w+", a[2]) and not ttype:
            ttype, tkey = m.group(1), tkey or a[2]
            break
    return ttype, tkey

def audit(tree, tree_wide=False):
    timers, handlers, threaded = tree.registrations()
    # Timer callbacks found by their signature alone.
    for name, defs in tree.defs.items():
        for d in defs:
            # a callback returns nothing (an hrtimer's: enum hrtimer_restart);
            # br_timer_value(const struct timer_list *) is a helper
            if not d.macro and len(d.params) == 1 and TIMER_PARAM.match(d.params[0]) and \
                    re.search(r"\bvoid$|\bhrtimer_restart$", getattr(d, "ret", "")) and \
                    not any(k == name for k, _ in timers):
                timers[(name, d.path)] = ("signature", "", None)

    def near(path, regs):
        return [(k, v) for k, v in sorted(regs.items())
                if tree_wide or tree.same_unit(k[1], path)]

    # Context of each function: the kinds of the registrations reaching it.
    ctx = {}
    for (fn, f), (kind, what) in handlers.items():
        for g in tree.reach(fn, f):
            ctx.setdefault(id(g), []).append((kind, what, fn))
    for (fn, f) in timers:
        for g in tree.reach(fn, f):
            ctx.setdefault(id(g), []).append((TIMERVEC, "timer callback", fn))
    # Every lock take, with the registration whose walk reached it (helpers'
    # parameters resolved along that walk); functions no registration
    # reaches are taken alone, with an unknown context.
    takes = {}
    for (fn, f), (kind, what) in handlers.items():
        for lk in tree.locks(fn, f):
            takes.setdefault(lk["key"], []).append((lk, kind, what, fn, f))
    for (fn, f) in timers:
        if handlers.get((fn, f), (None,))[0] == HRTVEC:
            continue            # a soft hrtimer's, or an si_hrtimer's standing for one
        for lk in tree.locks(fn, f):
            takes.setdefault(lk["key"], []).append((lk, TIMERVEC, "timer callback", fn, f))
    for name, defs in tree.defs.items():
        for d in defs:
            if d.macro or id(d) in ctx:
                continue
            for lk in tree.locks(name, d.path):
                if lk["fn"] is d:
                    takes.setdefault(lk["key"], []).append((lk, None, None, None, d.path))
    # Sync cancels of each timer key, with their context.
    cancels = []
    for name, defs in tree.defs.items():
        for d in defs:
            if d.macro:
                continue
            for c in d.calls:
                if SYNC_CANCEL.match(c.name + "(") and c.args:
                    cancels.append((member_key(c.args[0]), d, c, c.args[0], tree.base_type(d, c.args[0])))

    report, done = [], set()
    for (cb, path), (api, flags, tkey) in sorted(timers.items()):
        fcb = tree.func(cb, path)
        if fcb is not None and fcb.macro:
            fcb = None
        if fcb is not None and id(fcb) in done:
            continue
        ev, verdict = [], "safe"
        opted = "SI_TIMER_SOFTINTERRUPTIBLE" in flags
        # SI_TIMER_MASK_HRTIMER keeps soft hrtimers out as well
        hr_masked = "SI_TIMER_MASK_HRTIMER" in flags
        hrt_cb = "hrtimer" in api

        def worse(v):
            return v if RANK[v] > RANK[verdict] else verdict

        if fcb is None:
            ev.append(("review", "not parsed: no definition of %s() found in the sources given "
                       "(another file, a macro, or C the audit cannot read); audit it by hand" % cb))
            where = "%s:%d" % (tree.files[path], tree.raw[path].count("\n", 0, tree.raw[path].find(cb)) + 1)
            ev.append(("read", tree.read(path)))
            report.append((tree.files[path], cb, "review", where, api, opted, ev, ev[0][1]))
            continue
        done.add(id(fcb))
        foreign = tree.kernel_owned(tree.timer_exprs.get((cb, path), []))
        if foreign:
            ev = [("kernel_owned", "kernel-owned: cannot opt in: %s; it stays a timer_list, its "
                   "callback runs in the TIMER softirq as before" % foreign),
                  ("read", tree.read(fcb.path))]
            report.append((tree.files[fcb.path], cb, "kernel_owned", "%s:%d" % (tree.files[fcb.path], fcb.line),
                           api, opted, ev, ev[0][1]))
            continue
        # found by its signature alone, an si_hrtimer's callback is one too
        hrt_cb = hrt_cb or bool(fcb.params and "si_hrtimer" in fcb.params[0])
        ttype, tkey = callback_timer(tree, fcb, tkey)
        mine = set(id(g) for g in tree.reach(cb, path))
        here = set(id(d) for ds in tree.defs.values() for d in ds
                   if tree_wide or tree.same_unit(d.path, path))
        positive = []
        for lk in tree.locks(cb, path):
            if not lk["plain"]:
                p = "%s() at %s%s" % (lk["call"], lk["where"], "" if re.search(r"_bh|_irq", lk["call"])
                                      else " (bottom halves or interrupts off there)")
                if p not in positive:
                    positive.append(p)
                continue
            inner = "" if lk["fn"] is fcb else " (in %s())" % lk["fn"].name
            what = "%s() takes %s at %s%s" % (lk["call"], lk["expr"], lk["where"], inner)
            if not lk["resolved"]:
                ev.append(("review", "%s: a lock through a pointer the audit cannot resolve; "
                           "find what it points to and who else takes it" % what))
                verdict = worse("review")
                continue
            if lk["key"] in KERNEL_SOFTIRQ_LOCK:
                ev.append(("needs_bh", "%s; %s" % (what, KERNEL_SOFTIRQ_LOCK[lk["key"]])))
                verdict = worse("needs_bh")
                continue
            bad, maybe, unknown_ctx, hrt, timer_only, hrt_masked, process = [], [], [], [], [], [], []
            for other, kind, kwhat, root, rpath in takes.get(lk["key"], []):
                if root == cb and rpath == path:
                    continue
                if lk["type"] and other["type"] and lk["type"] != other["type"]:
                    continue
                if not tree_wide and not tree.same_unit(rpath, path):
                    continue
                if kind == SOFTIRQ:
                    bad.append((other, kwhat, root))
                elif kind == MAYBE:
                    maybe.append((other, kwhat, root))
                elif kind == TIMERVEC:
                    timer_only.append((other, kwhat, root))
                elif kind == HRTVEC:
                    (hrt_masked if hr_masked else hrt).append((other, kwhat, root))
                elif kind in (PROCESS, HARDIRQ):
                    process.append((other, kwhat, root))
                elif kind is None and id(other["fn"]) not in mine:
                    unknown_ctx.append(other)
            def taker(other, root):
                return "%s() at %s%s" % (other["call"], other["where"],
                                         "" if other["fn"].name == root else
                                         " in %s()" % other["fn"].name)
            if bad:
                other, kwhat, root = bad[0]
                ev.append(("needs_bh", "%s; %s %s() takes it too (%s)"
                           % (what, kwhat, root, taker(other, root))))
                verdict = worse("needs_bh")
            elif maybe:
                other, kwhat, root = maybe[0]
                ev.append(("review", "%s; %s() takes it too (%s), %s"
                           % (what, root, taker(other, root), kwhat)))
                verdict = worse("review")
            elif unknown_ctx:
                other = unknown_ctx[0]
                ev.append(("review", "%s; %s() takes it too (%s() at %s), reached from no "
                           "registration the audit found: its context is unknown"
                           % (what, other["fn"].name, other["call"], other["where"])))
                verdict = worse("review")
            elif hrt:
                other, kwhat, root = hrt[0]
                ev.append(("mask_hrtimer", "%s; %s %s() takes it too (%s): soft hrtimers run during "
                           "a soft-interruptible callback unless it masks them: opt in with "
                           "SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_MASK_HRTIMER (or take it with "
                           "spin_lock_bh())" % (what, kwhat, root, taker(other, root))))
                verdict = worse("mask_hrtimer")
            elif lk["key"] not in tree.lock_decls:
                ev.append(("review", "%s; no file read declares it (no spinlock_t/rwlock_t %s in "
                           "%s): its other takers are not read; find where it is declared and "
                           "who else takes it" % (what, lk["key"], tree.read(path))))
                verdict = worse("review")
            elif tree.missing(path):
                ev.append(("review", "%s; objects of the module not read (no source found): %s: "
                           "they may take it too" % (what, ", ".join(tree.missing(path)))))
                verdict = worse("review")
            else:
                shared = []
                if timer_only:
                    shared.append("timer callbacks %s (the TIMER vector stays masked, and the "
                                  "executors run one callback at a time, while a "
                                  "soft-interruptible callback runs)"
                                  % ", ".join(sorted(set("%s()" % r for _, _, r in timer_only))))
                if hrt_masked:
                    shared.append("soft hrtimer callbacks %s (masked too: SI_TIMER_MASK_HRTIMER)"
                                  % ", ".join(sorted(set("%s()" % r for _, _, r in hrt_masked))))
                if process:
                    shared.append("%s (%s)" % (", ".join(sorted(set("%s()" % r for _, _, r in process))),
                                               ", ".join(sorted(set(w for _, w, _ in process)))))
                ev.append(("info", "%s; %s" % (what, "shared only with " + " and ".join(shared)
                                               if shared else "no other code in these sources takes it")))
                p = "%s %s" % (lk["key"], "shared with timer callbacks or process context only"
                               if shared else "taken by this callback only")
                if hrt_masked:
                    p += " (soft hrtimers masked: SI_TIMER_MASK_HRTIMER)"
                if p not in positive:
                    positive.append(p)
        pcb = tree.percpu(cb, path)
        for key, op, expr, fn, where in pcb:
            for (other, opath), (kind, kwhat) in near(path, handlers):
                if kind not in (SOFTIRQ, MAYBE, HRTVEC) or (kind == HRTVEC and hr_masked) or \
                        (other == cb and opath == path):
                    continue
                hits = [h for h in tree.percpu(other, opath) if percpu_match(h[0], key)]
                if hits:
                    v = {SOFTIRQ: "keep_compatible", MAYBE: "review", HRTVEC: "mask_hrtimer"}[kind]
                    ev.append((v, "%s(%s) at %s; %s %s() touches it too (%s(%s) at %s)%s"
                               % (op, expr, where, kwhat, other, hits[0][1], hits[0][2], hits[0][4],
                                  "; per_cpu_ptr() of the running CPU (its CPU comes from "
                                  "smp_processor_id())"
                                  if "per_cpu_ptr" in (op, hits[0][1]) else "")))
                    verdict = worse(v)
                    break
        for what, fn, where in tree.matches(cb, path, CONTEXT):
            ev.append(("keep_compatible", "%s() at %s: assumes softirq context" % (what, where)))
            verdict = worse("keep_compatible")
        for f in tree.reach(cb, path):
            for c in f.calls:
                if RAISE.match(c.name + "(") and not tree.bh_disabled_at(f, c.pos):
                    ev.append(("needs_bh", "%s() at %s%s raises a softirq with bottom halves "
                               "enabled: wrap it in local_bh_disable()/local_bh_enable()"
                               % (c.name, tree.where(f, c.pos),
                                  "" if f is fcb else " (in %s())" % f.name)))
                    verdict = worse("needs_bh")
            # ->ndo_start_xmit(): a call through a pointer, which the
            # parser's calls (by a callee's name) do not hold: text.
            for m in BH_CALLER.finditer(f.body):
                if not tree.bh_disabled_at(f, m.start()) and \
                        not any(g is f and b.get("@off") for g, b in tree.walk(cb, path)):
                    ev.append(("needs_bh", "%s() at %s%s is the network stack's softirq path, "
                               "which expects bottom halves off: wrap it in "
                               "local_bh_disable()/local_bh_enable()"
                               % (m.group(1) or m.group(2), tree.where(f, m.start()),
                                  "" if f is fcb else " (in %s())" % f.name)))
                    verdict = worse("needs_bh")
        # Synchronous cancels of this timer from softirq or BH-disabled code.
        for key, d, m, arg, ctype in cancels:
            if tkey is None or key != tkey or id(d) not in here:
                continue
            if ctype and ttype and ctype != ttype:
                continue
            if ("hrtimer" in m.name) != hrt_cb:
                continue                # a timer_list's cancel of an hrtimer's name, or back
            hard = [w for k, w, _ in ctx.get(id(d), []) if k == HARDIRQ]
            if hrt_cb and hard:
                ev.append(("review", "%s(%s) at %s in %s() (%s): si_hrtimer_cancel() refuses hard "
                           "interrupt context (-EINVAL, without waiting) where hrtimer_cancel() "
                           "waited, in compatible mode too; cancel from process context"
                           % (m.name, arg, tree.where(d, m.pos), d.name, hard[0])))
                verdict = worse("review")
                continue
            why = None
            kinds = [(k, w) for k, w, _ in ctx.get(id(d), []) if k == SOFTIRQ]
            if tree.bh_disabled_at(d, m.pos, only_bh=True):
                why = "bottom halves disabled there"
            elif kinds:
                why = "softirq code: %s" % kinds[0][1]
            elif any((d.name, d.path) == t for t in threaded):
                why = "a threaded irq handler: bottom halves off on PREEMPT_RT"
            if why is None:
                continue
            stmt = statement_start(d.body, m.pos)
            checked = bool(re.search(r"=|\bif\b|\bwhile\b|\breturn\b|\(", stmt))
            ev.append(("review", "%s(%s) at %s in %s() (%s): once opted in, on PREEMPT_RT it "
                       "returns -EDEADLK without waiting while the callback runs on this CPU; "
                       "%s; do not free the timer there (DOC-kit.md, -EDEADLK)"
                       % (m.name, arg, tree.where(d, m.pos), d.name, why,
                          "the result is used" if checked else "the result is not checked")))
            verdict = worse("review")
        # Softirq code that sync-cancels another timer whose callback
        # sync-cancels this one: once this callback is soft-interruptible,
        # that softirq may run inside it, and the two waits close a cycle.
        for key, d, m, arg, ctype in cancels:
            if tkey is None or key == tkey or id(d) not in here:
                continue
            soft = [w for k, w, _ in ctx.get(id(d), []) if k == SOFTIRQ]
            if not soft:
                continue
            for (ocb, opath), (_, _, okey) in sorted(timers.items()):
                focb = tree.func(ocb, opath)
                if focb is None or focb.macro or callback_timer(tree, focb, okey)[1] != key:
                    continue
                theirs = set(id(g) for g in tree.reach(ocb, opath))
                for bkey, bd, bm, barg, _ in cancels:
                    if bkey != tkey or id(bd) not in theirs:
                        continue
                    ev.append(("review", "%s(%s) at %s in %s() (softirq code: %s) waits for %s(), "
                               "which waits for this callback: %s(%s) at %s in %s(); once opted "
                               "in the softirq may run inside this callback, and the second of "
                               "the two waits returns -EDEADLK without waiting (design.md, "
                               "refusal 3); do not free either timer after it"
                               % (m.name, arg, tree.where(d, m.pos), d.name, soft[0],
                                  ocb, bm.name, barg, tree.where(bd, bm.pos),
                                  bd.name)))
                    verdict = worse("review")
        ev = [e for i, e in enumerate(ev) if e not in ev[:i]]
        text_read = sorted(set("%s()" % g.name for g in tree.reach(cb, path) if not g.parsed and not g.macro))
        if text_read:
            ev.append(("info", "read as text (Coccinelle's parser skipped the definition): %s"
                       % ", ".join(text_read)))
        ev.append(("read", tree.read(fcb.path)))
        where = "%s:%d" % (tree.files[fcb.path], fcb.line)
        if verdict == "safe":
            why = ("takes no lock" if not positive else
                   "every lock taken with _bh/_irq, or shared with timer callbacks or process "
                   "context only: " + "; ".join(positive))
            ext = sorted(set(c for g in tree.reach(cb, path) for c in (x.name for x in g.calls)
                             if c not in tree.defs and c not in KEYWORDS and c not in NOT_CALLS
                             and not LOCK_CALL.match(c + "(")
                             and not re.match(r"(raw_)?(spin|read|write)_unlock", c)))
            if ext:
                why += "; calls outside these sources, not followed: %s" % ", ".join(
                    "%s()" % c for c in ext[:8]) + (" and %d more" % (len(ext) - 8) if len(ext) > 8 else "")
        else:
            why = next(t for k, t in ev if k == verdict)
        report.append((where.split(":")[0], cb, verdict, where, api, opted, ev, why))
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", choices=("text", "tsv"), default="text")
    ap.add_argument("--tree-wide", action="store_true",
                    help="match softirq handlers of every directory, not only the callback's")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    for p in args.paths:
        if not os.path.exists(p):
            sys.exit("si-timer-audit: %s: no such file or directory" % p)
    try:
        tree = Tree(args.paths)
    except RuntimeError as e:          # no spatch, or it failed on the rules
        sys.exit("si-timer-audit: %s" % e)
    rep = audit(tree, args.tree_wide)
    if args.format == "tsv":
        for path, cb, verdict, where, api, opted, ev, why in rep:
            print("%s\t%s\t%s\t%d\t%s\t%s" % (path, cb, verdict,
                                             sum(e[0] not in ("info", "read") for e in ev),
                                             " ".join(why.split()),
                                             "; ".join(t for k, t in ev if k == "read")))
        return 0
    for path, cb, verdict, where, api, opted, ev, why in rep:
        print("%s() at %s [%s%s]: %s" % (cb, where, api, ", opted in" if opted else "", verdict))
        if verdict == "safe":
            print("    %-15s %s" % ("safe", why))
        for kind, text in ev:
            print("    %-15s %s" % (kind, text))
    n = {v: sum(r[2] == v for r in rep) for v in RANK}
    print("%d callbacks: %d safe, %d mask_hrtimer, %d review, %d needs_bh, %d keep_compatible%s"
          % (len(rep), n["safe"], n["mask_hrtimer"], n["review"], n["needs_bh"], n["keep_compatible"],
             ", %d kernel-owned (cannot opt in)" % n["kernel_owned"] if n["kernel_owned"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
