/* access.c: who may use the NICs nicd hosts, as a device node's mode and group say who may
 * open a card: --mode gives the permission bits of the NICs' windows and of the connection
 * manager's socket (default 0600: nicd's user alone), --group their group. The run directory
 * follows, so that the processes allowed in can also record their listeners there
 * (host/sovia/sv_listen.c) and read the hosts file: it gets the read, write and search bits
 * of each class the mode lets read and write, and with --group the set-group-ID bit, so that
 * what they create there belongs to the group. A process left out gets EACCES when it opens a
 * window (VIP_PROTECTION_ERROR from VipOpenNic, EACCES from the SOVIA shim's socket calls). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nicd.h"

int access_parse(struct nicd_access *a, const char *mode, const char *group, char *why,
                 size_t cap) {
  *a = (struct nicd_access){.mode = 0600, .gid = (gid_t)-1, .given = mode || group};
  if (mode) {
    char *end;
    errno = 0;
    long m = strtol(mode, &end, 8);
    if (errno || end == mode || *end || m < 0 || m > 0777 || (m & 0600) != 0600) {
      snprintf(why, cap, "--mode: '%s' is not an octal mode from 0600 to 0777 that lets nicd's "
               "user read and write", mode);
      return -1;
    }
    a->mode = (mode_t)m;
  }
  if (group) {
    struct group *g = getgrnam(group);
    char *end;
    long id = strtol(group, &end, 10);
    if (g) a->gid = g->gr_gid;
    else if (*group && !*end && id >= 0) a->gid = (gid_t)id;
    else {
      snprintf(why, cap, "--group: no group '%s'", group);
      return -1;
    }
    if (!mode) a->mode = 0660;   /* naming a group means letting it in */
  }
  return 0;
}

/* The run directory's bits: rwx for each class the mode lets read and write. */
static mode_t dir_mode(const struct nicd_access *a) {
  mode_t m = 0700;
  if ((a->mode & 0060) == 0060) m |= 0070;
  if ((a->mode & 0006) == 0006) m |= 0007;
  if (a->gid != (gid_t)-1) m |= S_ISGID;
  return m;
}

static int apply_fd(const struct nicd_access *a, int fd, mode_t mode) {
  if (a->gid != (gid_t)-1 && fchown(fd, (uid_t)-1, a->gid) != 0) return -errno;
  return fchmod(fd, mode) != 0 ? -errno : 0;   /* after chown, which may clear S_ISGID */
}

static int apply_path(const struct nicd_access *a, const char *path, int flags, mode_t mode) {
  int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -errno;
  int rc = apply_fd(a, fd, mode);
  close(fd);
  return rc;
}

int access_rundir(const struct nicd_access *a, const char *dir) {
  return a->given ? apply_path(a, dir, O_RDONLY | O_DIRECTORY, dir_mode(a)) : 0;
}

/* The hosts file nicd writes is no secret: readable by all, as before. */
int access_file(const struct nicd_access *a, const char *path) {
  return a->given ? apply_path(a, path, O_RDONLY, 0644) : 0;
}

/* A unix socket cannot be opened; its mode is that of its file. */
int access_socket(const struct nicd_access *a, const char *path) {
  if (!a->given) return 0;
  if (a->gid != (gid_t)-1 && lchown(path, (uid_t)-1, a->gid) != 0) return -errno;
  return chmod(path, a->mode) != 0 ? -errno : 0;
}

int access_window(const struct nicd_access *a, const char *name) {
  if (!a->given) return 0;
  int fd = shm_open(name, O_RDWR, 0);
  if (fd < 0) return -errno;
  int rc = apply_fd(a, fd, a->mode);
  close(fd);
  return rc;
}
