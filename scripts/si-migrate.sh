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
# Timers the kernel owns are left alone; they and whatever else is left for
# you are listed on stderr, in every mode. KDIR: the kernel headers in which
# the struct of a kernel-owned timer is looked up.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cocci=$here/coccinelle/si_timer_convert.cocci
scan=$here/si-migrate-scan.py
die() { echo "si-migrate: $*" >&2; exit 1; }
command -v spatch > /dev/null || die "spatch not found (apt-get install coccinelle)"

diff_only=
[ "${1:-}" = --diff ] && { diff_only=1; shift; }
[ $# -gt 0 ] || { sed -n '4,14s/^# \{0,1\}//p' "$0" >&2; exit 1; }

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
[ ${#files[@]} -gt 0 ] || die "no .c or .h file in $*"

# Which timers are the driver's own (declared in these files), which the
# kernel's: the semantic patch converts only the former.
SI_OWN_MEMBERS= SI_DWORK= SI_FOREIGN_CB= SI_TYPED_OWN= SI_TYPED_FOREIGN=
eval "$(python3 "$scan" env "${files[@]}")"
export SI_MIGRATE_SCAN=$scan SI_OWN_MEMBERS SI_DWORK SI_FOREIGN_CB SI_TYPED_OWN SI_TYPED_FOREIGN

# A file that now uses si_timer but got it through another header: include it
# after the file's last <linux/...> include outside any #if (an include
# guard's #ifndef counts as outside), else before its first include; in a
# file without includes, after its include guard or before its first code.
add_include() {
	local f=$1
	grep -q 'si_timer\|SI_TIMER' "$f" || return 0
	grep -q '#include[[:space:]]*<si_timer.h>' "$f" && return 0
	awk '
	BEGIN { depth = 0; min = -1 }
	{ lines[NR] = $0 }
	/^[ \t]*#[ \t]*if/ { depth++ }
	/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
		inc[NR] = depth
		if (!(depth in first)) first[depth] = NR
		if ($0 ~ /<linux\//) lastlinux[depth] = NR
		if (min < 0 || depth < min) min = depth
	}
	/^[ \t]*#[ \t]*endif/ { depth-- }
	# No include at all (a header, a fragment included by another file):
	# after an include guard, else before the first line of code.
	{
		if (incomment) { if ($0 ~ /\*\//) incomment = 0; next }
		if ($0 ~ /^[ \t]*\/\*/ && $0 !~ /\*\//) { incomment = 1; next }
		if ($0 ~ /^[ \t]*(\/\*.*\*\/)?[ \t]*$/ || $0 ~ /^[ \t]*\/\//) next
		if (!code) {
			code = NR
			if ($0 ~ /^[ \t]*#[ \t]*ifndef/) guard = NR
		} else if (guard == code && !guarddef && $0 ~ /^[ \t]*#[ \t]*define/) guarddef = NR
	}
	END {
		at = -1; before = 0
		if (min >= 0 && (min in lastlinux)) at = lastlinux[min]
		else if (min >= 0) { at = first[min]; before = 1 }
		else if (guarddef) at = guarddef
		else if (code) { at = code; before = 1 }
		for (i = 1; i <= NR; i++) {
			if (i == at && before) { print "#include <si_timer.h>"; if (min < 0) print "" }
			print lines[i]
			if (i == at && !before) print "#include <si_timer.h>"
		}
		if (at < 0) exit 3
	}' "$f" > "$f.si-migrate" && mv "$f.si-migrate" "$f" ||
		{ rm -f "$f.si-migrate"; echo "si-migrate: $f: no #include of its own: it gets <si_timer.h> from the file including it, or add it" >&2; }
}

convert() {
	spatch --very-quiet --sp-file "$cocci" -D patch --no-includes --include-headers \
		--in-place "$1" > /dev/null || { echo "si-migrate: spatch failed on $2" >&2; return 1; }
	add_include "$1"
}

rc=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
conv=()		# the converted text of each file: itself, or a copy with --diff
for i in "${!files[@]}"; do
	f=${files[$i]}
	if [ -n "$diff_only" ]; then
		mkdir -p "$tmp/$i"
		cp "$f" "$tmp/$i/"
		convert "$tmp/$i/${f##*/}" "$f" || rc=1
		diff -u --label "a/$f" --label "b/$f" "$f" "$tmp/$i/${f##*/}" || true
		conv+=("$tmp/$i/${f##*/}")
	else
		convert "$f" "$f" || rc=1
		conv+=("$f")
	fi
done

# What the semantic patch does not convert is left for the author, named by
# the file and the line of its converted text (in place: the file now; with
# --diff: the diff's b/ side): kernel-owned timers (with what to do), then
# code lines (comments are not code) that still name the timer_list API.
names=()
for i in "${!files[@]}"; do
	names+=(-e "s|^${conv[$i]}:|${files[$i]}:|")
done
left=$(python3 "$scan" foreign "${conv[@]}" | sed "${names[@]}")
seen=$(printf '%s\n' "$left" | sed -n 's/^\([^:]*:[0-9]*\):.*/\1/p')
for i in "${!files[@]}"; do
	f=${files[$i]}
	{ grep -nE '\btimer_list\b|\b(TIMER_IRQSAFE|setup_timer|init_timer[a-z_]*|__init_timer[a-z_]*)\b' \
		"${conv[$i]}" 2>/dev/null || true; } |
		{ grep -vE '^[0-9]+:[[:space:]]*(/?\*|//)' || true; } |
		while IFS= read -r l; do
			n=${l%%:*}
			printf '%s\n' "$seen" | grep -qx "$f:$n" && continue
			text=${l#*:}
			case $text in
			*TIMER_IRQSAFE*) why="si_timer has no irq-safe mode (its callbacks run in a thread)" ;;
			*setup_timer*|*init_timer*) why="pre-4.15 API: rewrite with timer_setup() first" ;;
			*) why="still a timer_list (a callback of a kernel-owned timer keeps one)" ;;
			esac
			printf '%s:%s: %s: %s\n' "$f" "$n" "$(echo "$text" | sed 's/^[[:space:]]*//')" "$why"
		done
done > "$tmp/left"
{ [ -z "$left" ] || printf '%s\n' "$left"; cat "$tmp/left"; } > "$tmp/all"
if [ -s "$tmp/all" ]; then
	echo "si-migrate: left for you to convert by hand (lines of the converted text):" >&2
	cat "$tmp/all" >&2
fi
exit $rc
