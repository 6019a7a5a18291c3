# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# KTAP output of the shell-level tests, sourced by selftests/init.sh (the
# test VM's /init, busybox sh) and selftests/dkms_test.sh (host, bash).
# The sourcing script defines say(), where a KTAP line goes (the guest's
# /dev/kmsg, or stdout), and may set KTAP_LOG to a file that takes what
# the tests print (the guest leaves it unset: the console takes it).
#
# ktap DOC TEST...: one document, running t_TEST for each TEST. A t_*
# function returns 0 ok, 1 fail (reason in $why), 2 skip (reason in $why).

diag() {
	[ -z "$*" ] || echo "$*" | while IFS= read -r l; do say "# $l"; done
}

ktap() {
	local doc=$1 i=0 t rc
	shift
	say "KTAP version 1"
	say "# Subtest: $doc"
	say "1..$#"
	for t in "$@"; do
		i=$((i + 1))
		why=
		if [ -n "${KTAP_LOG:-}" ]; then
			"t_$t" >> "$KTAP_LOG" 2>&1
		else
			"t_$t"
		fi
		rc=$?
		case $rc in
		0) say "ok $i $t" ;;
		2) say "ok $i $t # SKIP $why" ;;
		*) diag "${why:-t_$t returned $rc}"; say "not ok $i $t" ;;
		esac
	done
}
