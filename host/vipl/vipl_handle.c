/* The handle table: a VIPL handle is (generation << 16 | slot), never a pointer the caller
 * could have corrupted; a destroyed handle's generation no longer matches. */
#include <pthread.h>
#include <stdint.h>

#include "vipl_internal.h"

#define VH_SLOTS 4096

static struct { uint16_t type, gen; void *obj; } tab[VH_SLOTS];
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;

void *vh_new(enum vh_type t, void *obj) {
  void *h = NULL;
  pthread_mutex_lock(&tab_lock);
  for (unsigned i = 1; i < VH_SLOTS; i++)
    if (!tab[i].type) {
      tab[i].type = (uint16_t)t;
      tab[i].gen = (uint16_t)(tab[i].gen + 1 ? tab[i].gen + 1 : 1);
      tab[i].obj = obj;
      h = (void *)(((uintptr_t)tab[i].gen << 16) | i);
      break;
    }
  pthread_mutex_unlock(&tab_lock);
  return h;
}

void *vh_get(const void *handle, enum vh_type t) {
  uintptr_t h = (uintptr_t)handle;
  unsigned i = (unsigned)(h & 0xffff);
  if (i == 0 || i >= VH_SLOTS || h > 0xffffffffu) return NULL;
  void *obj = NULL;
  pthread_mutex_lock(&tab_lock);
  if (tab[i].type == t && tab[i].gen == (uint16_t)(h >> 16)) obj = tab[i].obj;
  pthread_mutex_unlock(&tab_lock);
  return obj;
}

void vh_free(const void *handle) {
  uintptr_t h = (uintptr_t)handle;
  unsigned i = (unsigned)(h & 0xffff);
  if (i == 0 || i >= VH_SLOTS) return;
  pthread_mutex_lock(&tab_lock);
  if (tab[i].gen == (uint16_t)(h >> 16)) {
    tab[i].type = 0;
    tab[i].obj = NULL;
  }
  pthread_mutex_unlock(&tab_lock);
}
