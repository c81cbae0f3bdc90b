/* preload_exec.c: SOVIA connections across exec. A connection lives in the process's memory,
 * which exec replaces, yet inetd-style servers hand theirs to the program they exec as a
 * descriptor (sshd's re-exec, ncat --exec, inetd, a CGI script on stdin and stdout). At exec
 * each connected SOVIA socket that would survive it (a descriptor without close-on-exec) goes
 * to a relay: a forked copy of the process that keeps the connection and copies between it
 * and one end of a unix socket pair, whose other end takes the socket's descriptor numbers.
 * The new program reads and writes a kernel socket; getsockname and getpeername give the
 * connection's names on any descriptor of it (passed in $SOVIA_RELAYED, keyed by the pair's
 * inode: sshd dups its stdin to another number), and TCP options on it are no-ops.
 * The relay ends when both directions have ended, or when either side goes away. A vfork
 * child's exec relays nothing (it shares its parent's memory), nor posix_spawn's. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload.h"
#include "preload_udp.h"
#include "sovia.h"

PL_REAL(int, execve, const char *, char *const[], char *const[])
PL_REAL(int, execvpe, const char *, char *const[], char *const[])
PL_REAL(int, fexecve, int, char *const[], char *const[])
PL_REAL(int, fcntl, int, int, ...)
PL_REAL(int, dup3, int, int, int)

#define ENV "SOVIA_RELAYED"
#define MAXREL 32

/* The socket (by inode) that stands for a relayed connection, and the connection's names. */
struct relayed {
  unsigned long ino;
  struct sockaddr_in local, peer;
  bool v6;
};
static struct relayed rel[MAXREL];
static unsigned nrel;

static unsigned long ino_of(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) ? (unsigned long)st.st_ino : 0;
}

/* $SOVIA_RELAYED: inode:localip:localport:peerip:peerport:v6, comma separated (numbers in
 * hex, addresses and ports in network order). */
static void env_read(void) {
  const char *p = getenv(ENV);
  while (p && *p && nrel < MAXREL) {
    struct relayed r = {0};
    unsigned la, lp, pa, pp, v6;
    int used = 0;
    if (sscanf(p, "%lx:%x:%x:%x:%x:%x%n", &r.ino, &la, &lp, &pa, &pp, &v6, &used) != 6) break;
    r.local = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = (in_port_t)lp, .sin_addr.s_addr = la};
    r.peer = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = (in_port_t)pp, .sin_addr.s_addr = pa};
    r.v6 = v6 != 0;
    rel[nrel++] = r;
    p += used;
    if (*p == ',') p++;
  }
}

static const struct relayed *relayed(int fd) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, env_read);
  if (!nrel) return NULL;
  unsigned long ino = ino_of(fd);
  for (unsigned i = 0; ino && i < nrel; i++)
    if (rel[i].ino == ino) return &rel[i];
  return NULL;
}

int pl_relay_name(int fd, struct sockaddr *addr, socklen_t *len, bool peer) {
  const struct relayed *r = relayed(fd);
  if (!r) return 1;
  if (!addr || !len) {
    errno = EFAULT;
    return -1;
  }
  struct pfd as = {.v6 = r->v6};
  pl_name_out(&as, (const struct sockaddr *)(peer ? &r->peer : &r->local), addr, len);
  return 0;
}

bool pl_relay_ip_level(int fd, int level) {
  return (level == IPPROTO_TCP || level == IPPROTO_IP || level == IPPROTO_IPV6) && relayed(fd);
}

/* ---- the relay ---- */

struct dir {
  char buf[65536];
  size_t off, len;
  bool eof;                  /* its source ended */
};

static void relay_quiet(int keep_a, int keep_b) {
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, NULL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  prctl(PR_SET_NAME, "sovia-relay");
  /* The other SOVIA and E-UDP sockets are the exec'ing program's: closed as a fork child
   * closes them. */
  for (int fd = 0; fd < PMAXFD; fd++)
    if (fd != keep_a && ((pl_sov(fd) && pl_tab[fd].sfd != keep_a) || pl_udp(fd))) close(fd);
  /* Every other descriptor too: a copy of a pipe's write end held here would keep its reader
   * from ever seeing the end (sshd counts its children's start-up so). */
  int fds[1024], n = 0;
  DIR *d = opendir("/proc/self/fd");
  for (struct dirent *e; d && (e = readdir(d)) && n < 1024;) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != keep_a && fd != keep_b && fd != dirfd(d)) fds[n++] = fd;
  }
  if (d) closedir(d);
  for (int i = 0; i < n; i++) {
    if (sovia_is_socket(fds[i])) continue;
    if (fds[i] < PMAXFD) pl_mark(fds[i], K_KERNEL);   /* so close() is the kernel's */
    close(fds[i]);
  }
  int null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3 && null >= 0; fd++)
    if (fd != keep_a && fd != keep_b && fd != null) dup2(null, fd);
  if (null > 2 && null != keep_a && null != keep_b) close(null);
}

/* Copies between SOVIA socket s and kernel socket u until both directions end, u's side
 * closes entirely (POLLHUP), or the connection fails. */
static _Noreturn void relay_main(int s, int u) {
  relay_quiet(s, u);
  static struct dir in, out;   /* in: SOVIA to u; out: u to SOVIA */
  sovia_fcntl(s, F_SETFL, O_NONBLOCK);
  fcntl(u, F_SETFL, O_NONBLOCK);
  bool gone = false;           /* u's side closed entirely: nothing more reaches it */
  while (!((in.eof || gone) && out.eof && !in.len && !out.len)) {
    struct pollfd p[2] = {{.fd = s}, {.fd = u}};
    if (!in.eof && !in.len && !gone) p[0].events |= POLLIN;
    if (out.len) p[0].events |= POLLOUT;
    if (!out.eof && !out.len) p[1].events |= POLLIN;
    if (in.len) p[1].events |= POLLOUT;
    if (sovia_poll(p, 2, -1) < 0 && errno != EINTR) break;
    if (p[0].revents & POLLIN) {
      ssize_t r = sovia_recv(s, in.buf, sizeof in.buf, 0);
      if (r > 0) in.off = 0, in.len = (size_t)r;
      else if (r == 0) in.eof = true, shutdown(u, SHUT_WR);
      else if (errno != EAGAIN) break;          /* reset: u closes below */
    }
    if (in.len && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(u, in.buf + in.off, in.len);
      if (w > 0) in.off += (size_t)w, in.len -= (size_t)w;
      else if (w < 0 && errno != EAGAIN) gone = true, in.len = 0;
    }
    if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = read(u, out.buf, sizeof out.buf);
      if (r > 0) out.off = 0, out.len = (size_t)r;
      else if (r == 0 || errno != EAGAIN) {
        out.eof = true;
        if (p[1].revents & POLLHUP) gone = true;
      }
    }
    if (out.len && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = sovia_send(s, out.buf + out.off, out.len, MSG_NOSIGNAL);
      if (w > 0) out.off += (size_t)w, out.len -= (size_t)w;
      else if (w < 0 && errno != EAGAIN) break;
    }
    if (out.eof && !out.len && !gone) sovia_shutdown(s, SHUT_WR);
    if ((p[0].revents & POLLERR) && !(p[0].revents & POLLIN)) break;
  }
  close(u);
  sovia_close(s);              /* a FIN after what was sent; exit() lingers for it */
  exit(0);
}

/* ---- exec ---- */

static void env_add(char *env, size_t cap, unsigned long ino, const struct sockaddr_in *l,
                    const struct sockaddr_in *p, bool v6) {
  size_t used = strlen(env);
  snprintf(env + used, cap - used, "%s%lx:%x:%x:%x:%x:%x", used > sizeof ENV ? "," : "", ino,
           (unsigned)l->sin_addr.s_addr, (unsigned)l->sin_port, (unsigned)p->sin_addr.s_addr,
           (unsigned)p->sin_port, v6 ? 1u : 0u);
}

static bool survives(int fd) {
  int fl = PL_CALL(fcntl)(fd, F_GETFD);
  return fl >= 0 && !(fl & FD_CLOEXEC);
}

/* Relays the connection of SOVIA descriptor sfd, which the application's descriptors fds
 * name; appends its entry to env. */
static void relay_one(int sfd, const int *fds, unsigned n, bool v6, char *env, size_t cap) {
  struct sockaddr_in l, p;
  socklen_t ll = sizeof l, pl = sizeof p;
  if (sovia_getsockname(sfd, (struct sockaddr *)&l, &ll) || sovia_getpeername(sfd, (struct sockaddr *)&p, &pl))
    return;   /* not connected: stays as it was (a listener does not survive exec) */
  /* This process takes the connection (a fork may have left it unclaimed), so that the fork
   * below hands it on to the relay as to any child, and the close here only forgets it. */
  struct pollfd q = {.fd = sfd, .events = POLLIN};
  if (sovia_poll(&q, 1, 0) < 0 || (q.revents & POLLNVAL)) return;   /* another process's */
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) return;
  pid_t pid = fork();
  if (pid < 0) {
    close(sp[0]);
    close(sp[1]);
    return;
  }
  if (pid == 0) {
    close(sp[1]);
    relay_main(sfd, sp[0]);
  }
  close(sp[0]);
  bool keep[16];
  for (unsigned i = 0; i < n; i++) {
    keep[i] = survives(fds[i]);
    pl_mark(fds[i], K_KERNEL);
  }
  sovia_close(sfd);             /* the relay holds it: here it is only forgotten */
  for (unsigned i = 0; i < n; i++) PL_CALL(dup3)(sp[1], fds[i], keep[i] ? 0 : O_CLOEXEC);
  unsigned long ino = ino_of(sp[1]);
  close(sp[1]);
  if (ino && nrel < MAXREL) rel[nrel++] = (struct relayed){ino, l, p, v6};
  env_add(env, cap, ino, &l, &p, v6);
}

/* Relays every connection that survives the exec; the $SOVIA_RELAYED entry (these and the
 * ones this process was given that still stand), or NULL if there is none. */
static char *relay_all(void) {
  if (sovia_vfork_child()) return NULL;
  size_t cap = 64 + (size_t)MAXREL * 64;
  char *env = malloc(cap);
  if (!env) return NULL;
  snprintf(env, cap, "%s=", ENV);
  (void)relayed(-1);            /* the ones this process was given, passed on */
  unsigned given = nrel;
  for (unsigned i = 0; i < given; i++) env_add(env, cap, rel[i].ino, &rel[i].local, &rel[i].peer, rel[i].v6);
  static bool done[PMAXFD];
  memset(done, 0, sizeof done);
  for (int fd = 0; fd < PMAXFD; fd++) {
    struct pfd *p = pl_sov(fd);
    if (!p || done[fd] || !survives(fd)) continue;
    int fds[16];
    unsigned n = 0;
    for (int x = fd; x < PMAXFD && n < 16; x++)
      if (pl_sov(x) && pl_tab[x].sfd == p->sfd && !done[x]) {
        done[x] = true;
        fds[n++] = x;
      }
    relay_one(p->sfd, fds, n, p->v6, env, cap);
  }
  if (strlen(env) == sizeof ENV) {
    free(env);
    return NULL;
  }
  return env;
}

/* envp with entry (NAME=...) in place of its own $SOVIA_RELAYED. */
static char **env_with(char *const envp[], char *entry) {
  size_t n = 0;
  while (envp && envp[n]) n++;
  char **e = malloc((n + 2) * sizeof *e);
  if (!e) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(envp[i], ENV "=", sizeof ENV) != 0) e[k++] = envp[i];
  e[k++] = entry;
  e[k] = NULL;
  return e;
}

int execve(const char *path, char *const argv[], char *const envp[]) {
  char *entry = relay_all();
  char **e = entry ? env_with(envp, entry) : NULL;
  int r = PL_CALL(execve)(path, argv, e ? e : envp);
  free(e);
  free(entry);
  return r;
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
  char *entry = relay_all();
  char **e = entry ? env_with(envp, entry) : NULL;
  int r = PL_CALL(execvpe)(file, argv, e ? e : envp);
  free(e);
  free(entry);
  return r;
}

int fexecve(int fd, char *const argv[], char *const envp[]) {
  char *entry = relay_all();
  char **e = entry ? env_with(envp, entry) : NULL;
  int r = PL_CALL(fexecve)(fd, argv, e ? e : envp);
  free(e);
  free(entry);
  return r;
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

int execl(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char **v = gather(arg, ap, NULL);
  va_end(ap);
  if (!v) return errno = ENOMEM, -1;
  int r = execve(path, v, environ);
  free(v);
  return r;
}

int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char **v = gather(arg, ap, NULL);
  va_end(ap);
  if (!v) return errno = ENOMEM, -1;
  int r = execvpe(file, v, environ);
  free(v);
  return r;
}

int execle(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char *const *envp = NULL;
  char **v = gather(arg, ap, &envp);
  va_end(ap);
  if (!v) return errno = ENOMEM, -1;
  int r = execve(path, v, envp);
  free(v);
  return r;
}
