#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Convert a driver's timer_list timers to si_timer, and its soft hrtimers to
# si_hrtimer, in place
# (scripts/coccinelle/si_timer_convert.cocci; Documentation/migration.md).
#
#   si-migrate.sh [--diff] FILE|DIR...
#
# DIR: every *.c and *.h below it. FILE: every file of its module (or
# modules), from its directory's Kbuild/Makefile (scripts/kbuild_mod.py);
# its directory when no Makefile lists it. --diff prints the change instead of
# writing it. The driver's soft hrtimers (HRTIMER_MODE_*_SOFT) become
# si_hrtimers; hard ones stay. Converted callbacks stay in compatible mode;
# audit them with scripts/si-timer-audit.py before adding
# SI_TIMER_SOFTINTERRUPTIBLE.
# Timers the kernel owns are left alone; they and whatever else is left for
# you are listed on stderr, in every mode. KDIR: the kernel headers in which
# the struct of a kernel-owned timer is looked up.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cocci=$here/coccinelle/si_timer_convert.cocci
macros=$here/coccinelle/si_timer_macros.h
scan=$here/si-migrate-scan.py
die() { echo "si-migrate: $*" >&2; exit 1; }
command -v spatch > /dev/null || die "spatch not found (apt-get install coccinelle)"

diff_only=
[ "${1:-}" = --diff ] && { diff_only=1; shift; }
[ $# -gt 0 ] || { sed -n '4,19s/^# \{0,1\}//p' "$0" >&2; exit 1; }

files=()
tmp_mod=$(mktemp)
trap 'rm -f "$tmp_mod"' EXIT
for a in "$@"; do
	if [ -d "$a" ]; then
		mapfile -t -O "${#files[@]}" files < <(find "$a" -type f \( -name '*.c' -o -name '*.h' \) | sort)
	elif [ -f "$a" ]; then
		# The unit of a conversion is the module: the files of the
		# module(s) $a belongs to (its directory's Kbuild/Makefile
		# objects and the headers they include; the directory when no
		# Makefile lists it). A timer's type, its users and its helpers
		# are converted together or listed together.
		mapfile -t mod < <(python3 "$here/kbuild_mod.py" files "$a" 2> "$tmp_mod")
		if [ "${#mod[@]}" -gt 1 ]; then
			echo "si-migrate: $a is one file of: $(sed 's/^si-migrate: //' "$tmp_mod" | paste -sd';')" >&2
			echo "si-migrate: converting all ${#mod[@]} files of it (the unit of a conversion is the module)" >&2
		fi
		for m in "${mod[@]}"; do
			case " ${files[*]} " in *" $m "*) ;; *) files+=("$m") ;; esac
		done
		[ "${#mod[@]}" -gt 0 ] || files+=("$a")
	else
		die "$a: no such file or directory"
	fi
done
[ ${#files[@]} -gt 0 ] || die "no .c or .h file in $*"

# Which timers are the driver's own (declared in these files), which the
# kernel's: the semantic patch converts only the former. Which soft
# hrtimers become si_hrtimers, and the positions to rewrite for them.
SI_HRT_EXCLUDE=
plan() {
	SI_OWN_MEMBERS='' SI_DWORK='' SI_FOREIGN_CB='' SI_TYPED_OWN='' SI_TYPED_FOREIGN='' SI_KEPT='' SI_KEEP_AT='' SI_KEEP_PARAMS=''
	SI_HRT_IDS='' SI_HRT_CBS='' SI_HRT_AT='' SI_HRT_EXPRS=''
	eval "$(python3 "$scan" env "${files[@]}")"
	export SI_MIGRATE_SCAN=$scan SI_OWN_MEMBERS SI_DWORK SI_FOREIGN_CB SI_TYPED_OWN SI_KEPT SI_KEEP_AT SI_KEEP_PARAMS \
		SI_TYPED_FOREIGN SI_HRT_IDS SI_HRT_CBS SI_HRT_AT SI_HRT_EXPRS SI_HRT_EXCLUDE
}

# A file that now uses si_timer but got it through another header: include it
# after the file's last <linux/...> include outside any #if (an include
# guard's #ifndef counts as outside), else before its first include; in a
# file without includes, after its include guard or before its first code.
# $2: the header, $3: what in the file needs it.
add_include() {
	local f=$1 h=$2
	grep -q "$3" "$f" || return 0
	grep -q "#include[[:space:]]*<$h>" "$f" && return 0
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
			if (i == at && before) { print "#include <" h ">"; if (min < 0) print "" }
			print lines[i]
			if (i == at && !before) print "#include <" h ">"
		}
		if (at < 0) exit 3
	}' h="$h" "$f" > "$f.si-migrate" && mv "$f.si-migrate" "$f" ||
		{ rm -f "$f.si-migrate"; echo "si-migrate: $f: no #include of its own: it gets <$h> from the file including it, or add it" >&2; }
}

# Convert $1, a copy of $2 (the name the scan's positions use).
convert() {
	SI_MIGRATE_FILE=$2 spatch --very-quiet --sp-file "$cocci" --macro-file "$macros" -D patch \
		--no-includes --include-headers --in-place "$1" > /dev/null ||
		{ echo "si-migrate: spatch failed on $2" >&2; return 1; }
	add_include "$1" si_timer.h 'si_timer\|SI_TIMER'
	add_include "$1" si_hrtimer.h 'si_hrtimer'
}

rc=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tmp_mod"' EXIT
# Every file is converted in a copy. An hrtimer of the plan that Coccinelle
# could not rewrite everywhere (a use in a macro, code it cannot parse)
# would be half converted: its group goes to SI_HRT_EXCLUDE and every file
# is converted again from the original, until none is left half done.
round=0
while :; do
	round=$((round + 1))
	plan
	conv=()		# the converted text of each file
	for i in "${!files[@]}"; do
		f=${files[$i]}
		mkdir -p "$tmp/$round/$i"
		cp "$f" "$tmp/$round/$i/"
		convert "$tmp/$round/$i/${f##*/}" "$f" || rc=1
		conv+=("$tmp/$round/$i/${f##*/}")
	done
	half=$(python3 "$scan" hrcheck "${conv[@]}")
	new=$(for n in $half; do case " $SI_HRT_EXCLUDE " in *" $n "*) ;; *) echo "$n" ;; esac; done)
	[ -n "$new" ] || break
	SI_HRT_EXCLUDE="$SI_HRT_EXCLUDE ${new//$'\n'/ }"
done
# Excluded and still half converted: the plan and the check disagree. Write nothing.
[ -z "$half" ] || die "hrtimers Coccinelle left half converted, nothing written: $half"
for i in "${!files[@]}"; do
	f=${files[$i]}
	if [ -n "$diff_only" ]; then
		diff -u --label "a/$f" --label "b/$f" "$f" "${conv[$i]}" || true
	else
		cmp -s "$f" "${conv[$i]}" || cat "${conv[$i]}" > "$f"
		conv[i]=$f
	fi
done

# What the semantic patch does not convert is left for the author, named by
# the file and the line of its converted text (in place: the file now; with
# --diff: the diff's b/ side): kernel-owned timers (with what to do), then
# code lines (comments are not code) that still name the timer_list API.
names=()
for i in "${!files[@]}"; do
	names+=(-e "s|${conv[$i]}:|${files[$i]}:|g")
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
