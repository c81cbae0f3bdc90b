/* preload_handoff.c: the calls after which a SOVIA connection would be out of the process's
 * reach, each of which first hands its connections to relays (preload_relay.c): the exec
 * family (the connections with a descriptor that survives it; the list forms gathered into
 * vectors), and a process closing itself in: chroot (nicd's socket and run directory are
 * outside), a change of user away from root (they may be root's alone), and a descriptor or
 * process limit below what SOVIA needs for nicd's socket and its close thread (vsftpd's
 * session sets both to zero). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "preload.h"

PL_REAL(int, execve, const char *, char *const[], char *const[])
PL_REAL(int, execvpe, const char *, char *const[], char *const[])
PL_REAL(int, fexecve, int, char *const[], char *const[])
PL_REAL(int, chroot, const char *)
PL_REAL(int, setuid, uid_t)
PL_REAL(int, setreuid, uid_t, uid_t)
PL_REAL(int, setresuid, uid_t, uid_t, uid_t)
PL_REAL(int, setrlimit, __rlimit_resource_t, const struct rlimit *)
PL_REAL(int, prlimit, pid_t, __rlimit_resource_t, const struct rlimit *, struct rlimit *)

/* ---- exec ---- */

int execve(const char *path, char *const argv[], char *const envp[]) {
  pl_relay_all(true);
  return PL_CALL(execve)(path, argv, envp);
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
  pl_relay_all(true);
  return PL_CALL(execvpe)(file, argv, envp);
}

int fexecve(int fd, char *const argv[], char *const envp[]) {
  pl_relay_all(true);
  return PL_CALL(fexecve)(fd, argv, envp);
}

int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }
int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

/* The list forms: their arguments gathered into a vector. */
static char **gather(const char *arg0, va_list ap, char *const **envp) {
  size_t n = 1, cap = 16;
  char **v = malloc(cap * sizeof *v);
  if (!v) return NULL;
  v[0] = (char *)arg0;
  for (char *a; arg0 && (a = va_arg(ap, char *));) {
    if (n + 2 > cap) {
      char **w = realloc(v, (cap *= 2) * sizeof *v);
      if (!w) {
        free(v);
        return NULL;
      }
      v = w;
    }
    v[n++] = a;
  }
  v[n] = NULL;
  if (envp) *envp = va_arg(ap, char *const *);
  return v;
}

/* execl, execlp, execle: the vector form (search: PATH's, as execvp; with_env: the
 * environment follows the arguments). */
static int exec_list(const char *file, bool search, bool with_env, const char *arg, va_list ap) {
  char *const *envp = environ;
  char **v = gather(arg, ap, with_env ? &envp : NULL);
  if (!v) return errno = ENOMEM, -1;
  int r = search ? execvpe(file, v, envp) : execve(file, v, envp);
  free(v);
  return r;
}

#define EXEC_LIST(file, search, with_env)                  \
  va_list ap;                                              \
  va_start(ap, arg);                                       \
  int r = exec_list(file, search, with_env, arg, ap);      \
  va_end(ap);                                              \
  return r

int execl(const char *path, const char *arg, ...) { EXEC_LIST(path, false, false); }
int execlp(const char *file, const char *arg, ...) { EXEC_LIST(file, true, false); }
int execle(const char *path, const char *arg, ...) { EXEC_LIST(path, false, true); }

/* ---- a process closing itself in ---- */

int chroot(const char *path) {
  pl_relay_all(false);
  return PL_CALL(chroot)(path);
}

/* Away from root: nicd's socket and run directory may be root's alone. */
static void leaving_root(uid_t to) {
  if (geteuid() == 0 && to != 0 && to != (uid_t)-1) pl_relay_all(false);
}
int setuid(uid_t uid) {
  leaving_root(uid);
  return PL_CALL(setuid)(uid);
}
int setreuid(uid_t r, uid_t e) {
  leaving_root(e);
  return PL_CALL(setreuid)(r, e);
}
int setresuid(uid_t r, uid_t e, uid_t s) {
  leaving_root(e);
  return PL_CALL(setresuid)(r, e, s);
}

/* Limits that leave no room for SOVIA's descriptors (nicd's socket at each disconnect) or
 * threads (the close thread). */
#define ROOM_FDS 64
#define ROOM_PROCS 64
static void limiting(int what, const struct rlimit *l) {
  if (l && ((what == RLIMIT_NOFILE && l->rlim_cur < ROOM_FDS) ||
            (what == RLIMIT_NPROC && l->rlim_cur < ROOM_PROCS)))
    pl_relay_all(false);
}
int setrlimit(__rlimit_resource_t what, const struct rlimit *l) {
  limiting((int)what, l);
  return PL_CALL(setrlimit)(what, l);
}
int setrlimit64(__rlimit_resource_t what, const struct rlimit64 *l) {
  return setrlimit(what, (const struct rlimit *)l);
}
int prlimit(pid_t pid, __rlimit_resource_t what, const struct rlimit *l, struct rlimit *old) {
  if (pid == 0 || pid == getpid()) limiting((int)what, l);
  return PL_CALL(prlimit)(pid, what, l, old);
}
int prlimit64(pid_t pid, __rlimit_resource_t what, const struct rlimit64 *l, struct rlimit64 *old) {
  return prlimit(pid, what, (const struct rlimit *)l, (struct rlimit *)old);
}
