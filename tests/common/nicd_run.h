/* nicd_run.h: a private nicd for the end-to-end tests and benchmarks (VIPL, PANIC): its own
 * run directory (/tmp/nicd-test-PID: socket, hosts file, pid file) and window names
 * (/vtPID-nicI), so that two tests running at once, or a nicd someone else started, never
 * meet.
 *
 * How clients find it: libnic maps a device name "nicI" to the fixed window /verinic-nicI
 * and reads no variable that would change that, so the NICs are opened by their full window
 * names, nicd_dev(i) (VipOpenNic, lnic_open and panic_open take a name starting with '/'
 * as is). Connection set-up and the name service find nicd through VERINIC_RUN, which
 * nicd_start sets for this process and every child it forks or execs afterwards. Forked
 * children share this process's prefix, so nicd_dev gives them the same names. */
#ifndef NICD_RUN_H
#define NICD_RUN_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts build/bin/nicd (or $NICD) with n NICs (at most 16) under this process's run
 * directory and prefix; sets VERINIC_RUN and unsets VERINIC_HOSTS and VERINIC_SOCKET, so
 * that this process and its children reach this nicd; waits until its socket is there and
 * every NIC's firmware is up. The firmware is nicd's native one, or with
 * VERINIC_FIRMWARE=lanai the LANai image ($VERINIC_LANAI_IMAGE, default
 * build/lanai/firmware.img) on nicd's instruction-set simulator (nicd --lanai). With
 * VERINIC_TIMING=PROFILE, nicd runs the LANai image in timing mode (nicd --timing PROFILE,
 * --trace $VERINIC_TIMING_TRACE when set, --coarse when $VERINIC_TIMING_COARSE is set;
 * `fast` is ignored). With VERINIC_CPUS=N, nicd --cpus N (two firmware processors per NIC).
 * The pid, or -1 (with a message). */
pid_t nicd_start(int n, bool fast);
/* SIGTERM (or SIGKILL when kill9, then removes the windows it left), reaps it and removes
 * the run directory. */
void nicd_stop(pid_t pid, bool kill9);
/* The device (window) name of NIC i of this process's nicd, "/vtPID-nicI"; the pid is the
 * one that called nicd_start (so children get the same names). */
const char *nicd_dev(int i);

#endif
