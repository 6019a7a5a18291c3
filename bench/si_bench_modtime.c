// SPDX-License-Identifier: GPL-2.0
/*
 * si_bench_modtime (B9, user space): load and unload a module ROUNDS times
 * and print the median time of its unload (the delete_module() system
 * call), by CLOCK_MONOTONIC (busybox's date has no ns):
 *	SI_BENCH_B9 <peer> n<label>_unload_us <us>
 * Static, for the test VM's initramfs (scripts/vm.sh).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *ko, *name, *peer, *label;
	long long t[64];
	int rounds, i, fd;

	rounds = argc == 6 ? atoi(argv[5]) : 0;
	if (rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: %s KO NAME PEER N_LABEL ROUNDS(1-64)\n", argv[0]);
		return 2;
	}
	ko = argv[1];
	name = argv[2];
	peer = argv[3];
	label = argv[4];
	for (i = 0; i < rounds; i++) {
		long long t0;

		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
			printf("SI_BENCH_ERROR B9 %s: cannot load %s: %m\n", peer, ko);
			return 1;
		}
		close(fd);
		t0 = now_ns();
		if (syscall(SYS_delete_module, name, O_NONBLOCK)) {
			printf("SI_BENCH_ERROR B9 %s: cannot unload %s: %m\n", peer, name);
			return 1;
		}
		t[i] = now_ns() - t0;
	}
	qsort(t, rounds, sizeof(t[0]), cmp);
	printf("SI_BENCH_B9 %s n%s_unload_us %lld\n", peer, label, t[rounds / 2] / 1000);
	return 0;
}
