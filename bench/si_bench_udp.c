// SPDX-License-Identifier: GPL-2.0
/*
 * B8, the user-space half: what a SCHED_FIFO 50 program on the benchmark
 * CPU sees while a long timer callback runs there (si_timer_bench hold=).
 * Every period it wakes by clock_nanosleep() (a HARD hrtimer for an RT
 * task), sends a UDP datagram over the loopback to an echo server (also
 * SCHED_FIFO 50, on the same CPU) and waits for the reply; each way the
 * loopback's NET_RX runs on that CPU in bottom-half context. Everything on
 * one CPU: under single-threaded TCG a vCPU that busy-waits holds the
 * others off for up to QEMU's 100 ms round-robin slice, which would swamp
 * a cross-CPU round trip. Socket set-up is excluded.
 *
 *	si_bench_udp PEER COUNT PERIOD_US CPU
 * prints
 *	SI_BENCH_B8U PEER rtt_p50_us=N rtt_p99_us=N rtt_max_us=N total_ms=N
 * (total: from the first send to the last reply; COUNT * PERIOD if nothing
 * is ever late).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void bind_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void serve(int fd)
{
	char buf[64];
	struct sockaddr_in from;
	socklen_t len;
	ssize_t n;

	for (;;) {
		len = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);
		if (n > 0)
			sendto(fd, buf, n, 0, (struct sockaddr *)&from, len);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in srv = { .sin_family = AF_INET };
	struct sched_param sp = { .sched_priority = 50 };
	int count, period_us, cpu, sfd, cfd, i;
	socklen_t len = sizeof(srv);
	long long *rtt, start, next;
	struct timespec ts;
	pid_t pid;
	char buf[64];

	if (argc != 5) {
		fprintf(stderr, "usage: %s PEER COUNT PERIOD_US CPU\n", argv[0]);
		return 2;
	}
	count = atoi(argv[2]);
	period_us = atoi(argv[3]);
	cpu = atoi(argv[4]);
	rtt = calloc(count, sizeof(*rtt));
	srv.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sfd = socket(AF_INET, SOCK_DGRAM, 0);
	cfd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!rtt || sfd < 0 || cfd < 0 ||
	    bind(sfd, (struct sockaddr *)&srv, sizeof(srv)) ||
	    getsockname(sfd, (struct sockaddr *)&srv, &len)) {
		perror("si_bench_udp: set-up");
		return 1;
	}
	bind_cpu(cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		perror("sched_setscheduler");
	pid = fork();	/* inherits the CPU and the policy */
	if (pid == 0)
		serve(sfd);
	/* one round trip outside the measurement: ARP-free, but warm */
	sendto(cfd, "w", 1, 0, (struct sockaddr *)&srv, sizeof(srv));
	recv(cfd, buf, sizeof(buf), 0);

	start = now_ns();
	next = start;
	for (i = 0; i < count; i++) {
		long long t0;

		next += period_us * 1000LL;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t0 = now_ns();
		sendto(cfd, &i, sizeof(i), 0, (struct sockaddr *)&srv, sizeof(srv));
		recv(cfd, buf, sizeof(buf), 0);
		rtt[i] = now_ns() - t0;
	}
	start = now_ns() - start;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	qsort(rtt, count, sizeof(*rtt), cmp_ll);
	printf("SI_BENCH_B8U %s rtt_p50_us=%lld rtt_p99_us=%lld rtt_max_us=%lld total_ms=%lld\n",
	       argv[1], rtt[count / 2] / 1000, rtt[count * 99 / 100] / 1000,
	       rtt[count - 1] / 1000, start / 1000000);
	return 0;
}
