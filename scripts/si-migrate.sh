#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Convert a driver's timer_list timers to si_timer, in place
# (scripts/coccinelle/si_timer_convert.cocci; Documentation/migration.md).
#
#   si-migrate.sh [--diff] FILE|DIR...
#
# DIR: every *.c and *.h below it. --diff prints the change instead of
# writing it. Converted callbacks stay in compatible mode; audit them with
# scripts/si-timer-audit.py before adding SI_TIMER_SOFTINTERRUPTIBLE.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cocci=$here/coccinelle/si_timer_convert.cocci
die() { echo "si-migrate: $*" >&2; exit 1; }
command -v spatch > /dev/null || die "spatch not found (apt-get install coccinelle)"

diff_only=
[ "${1:-}" = --diff ] && { diff_only=1; shift; }
[ $# -gt 0 ] || { sed -n '4,11s/^# \{0,1\}//p' "$0" >&2; exit 1; }

files=()
for a in "$@"; do
	if [ -d "$a" ]; then
		mapfile -t -O "${#files[@]}" files < <(find "$a" -type f \( -name '*.c' -o -name '*.h' \) | sort)
	elif [ -f "$a" ]; then
		files+=("$a")
	else
		die "$a: no such file or directory"
	fi
done

# A file that now uses si_timer but got it through another header: include it
# after the file's last <linux/...> include.
add_include() {
	local f=$1
	grep -q 'si_timer\|DEFINE_SI_TIMER' "$f" || return 0
	grep -q '#include[[:space:]]*<si_timer.h>' "$f" && return 0
	if grep -q '^#include[[:space:]]*<linux/' "$f"; then
		awk '{ lines[NR] = $0; if ($0 ~ /^#include[ \t]*<linux\//) last = NR }
		     END { for (i = 1; i <= NR; i++) { print lines[i]; if (i == last) print "#include <si_timer.h>" } }' \
			"$f" > "$f.si-migrate" && mv "$f.si-migrate" "$f"
	else
		sed -i '0,/^#include/s//#include <si_timer.h>\n#include/' "$f"
	fi
}

rc=0
for f in "${files[@]}"; do
	if [ -n "$diff_only" ]; then
		tmp=$(mktemp -d)
		cp "$f" "$tmp/"
		spatch --very-quiet --sp-file "$cocci" -D patch --no-includes --include-headers \
			--in-place "$tmp/${f##*/}" > /dev/null || rc=1
		add_include "$tmp/${f##*/}"
		diff -u --label "a/$f" --label "b/$f" "$f" "$tmp/${f##*/}" || true
		rm -rf "$tmp"
	else
		spatch --very-quiet --sp-file "$cocci" -D patch --no-includes --include-headers \
			--in-place "$f" > /dev/null || { echo "si-migrate: spatch failed on $f" >&2; rc=1; }
		add_include "$f"
	fi
done
# What the semantic patch cannot convert is left for the author, named.
left=$(grep -nE '\btimer_list\b|\b(TIMER_IRQSAFE|setup_timer|init_timer[a-z_]*|__init_timer[a-z_]*)\b' \
	"${files[@]}" 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
if [ -n "$left" ] && [ -z "$diff_only" ]; then
	echo "si-migrate: left for you to convert by hand:" >&2
	echo "$left" >&2
fi
exit $rc
