/* iss_image.c: reads a firmware image as `make firmware-lanai` writes it (firmware/lanai/
 * README.md): the flat image with its map file beside it, or the ELF twin, checked against
 * the map/ELF and the SRAM size before a byte of it reaches SRAM. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../be.h"
#include "iss.h"

#define MAX_FILE (256u << 20)

static int fail(char *err, size_t n, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (err && n) vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return -1;
}

/* The whole file; NULL with *len = 0 for an empty one. -1 if unreadable or too big. */
static int slurp(const char *path, uint8_t **data, size_t *len, char *err, size_t n)
{
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, n, "%s: cannot open", path);
  size_t cap = 0, used = 0;
  uint8_t *buf = NULL;
  for (;;) {
    if (used == cap) {
      if (cap >= MAX_FILE) {
        free(buf);
        fclose(f);
        return fail(err, n, "%s: not a LANai image (larger than 256 MiB)", path);
      }
      cap = cap ? cap * 2 : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return fail(err, n, "%s: out of memory", path);
      }
      buf = nb;
    }
    size_t got = fread(buf + used, 1, cap - used, f);
    used += got;
    if (got == 0) break;
  }
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return fail(err, n, "%s: read error", path);
  }
  *data = buf;
  *len = used;
  return 0;
}

/* ---- flat image + map ---- */

struct map {
  bool has_memory, has_text, has_data;
  uint32_t budget, text_end, data_end;
};

static int map_parse(const char *mpath, FILE *f, struct map *m, char *err, size_t n)
{
  char line[512];
  unsigned lineno = 0;
  memset(m, 0, sizeof *m);
  while (fgets(line, sizeof line, f)) {
    lineno++;
    unsigned long a, b, s;
    char cls[32];
    if (line[0] == '#' || line[0] == '\n') continue;
    if (sscanf(line, "memory %lx %lx", &a, &b) == 2) {
      m->has_memory = true;
      m->budget = (uint32_t)a;
    } else if (sscanf(line, "output %31s %lx %lx %lu", cls, &a, &b, &s) == 4) {
      if (a > b || b > 0xffffffffu)
        return fail(err, n, "%s:%u: not a LANai map (bad output range)", mpath, lineno);
      if (!strcmp(cls, "text")) { m->has_text = true; m->text_end = (uint32_t)b; }
      if (!strcmp(cls, "data")) { m->has_data = true; m->data_end = (uint32_t)b; }
    } else if (strncmp(line, "entry ", 6) && strncmp(line, "section ", 8) &&
               strncmp(line, "symbol ", 7) && strncmp(line, "output ", 7)) {
      return fail(err, n, "%s:%u: not a LANai map (unknown record)", mpath, lineno);
    }
  }
  if (!m->has_memory || !m->has_text || !m->has_data)
    return fail(err, n, "%s: not a LANai map (no memory/output text/output data record)",
                mpath);
  return 0;
}

/* "dir/firmware.img" -> "dir/firmware.map", falling back to "dir/firmware.img.map". */
static FILE *map_open(const char *path, char *mpath, size_t n)
{
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (dot && (!slash || dot > slash)) {
    snprintf(mpath, n, "%.*s.map", (int)(dot - path), path);
    FILE *f = fopen(mpath, "r");
    if (f) return f;
  }
  snprintf(mpath, n, "%s.map", path);
  return fopen(mpath, "r");
}

static int read_flat(const char *path, size_t len, uint32_t sram_size,
                     struct iss_image *img, char *err, size_t n)
{
  char mpath[4096];
  struct map m;
  FILE *mf = map_open(path, mpath, sizeof mpath);
  if (!mf) return fail(err, n, "%s: not a LANai image (no ELF header and no map file %s)",
                       path, mpath);
  int rc = map_parse(mpath, mf, &m, err, n);
  fclose(mf);
  if (rc) return rc;
  if (len < m.data_end)
    return fail(err, n, "%s: truncated (%zu bytes, the map says 0x%x)", path, len, m.data_end);
  if (len > m.data_end)
    return fail(err, n, "%s: not the image of %s (%zu bytes, the map says 0x%x)", path, mpath,
                len, m.data_end);
  if (m.budget > sram_size || len > m.budget)
    return fail(err, n, "%s: %zu bytes do not fit the SRAM budget (budget 0x%x, SRAM 0x%x)",
                path, len, m.budget, sram_size);
  if (m.text_end > len || m.text_end % 4)
    return fail(err, n, "%s: not a LANai image (text end 0x%x)", path, m.text_end);
  img->len = (uint32_t)len;
  img->text_end = m.text_end;
  img->budget = m.budget;
  return 0;
}

/* ---- ELF twin ---- */

static int read_elf(const char *path, const uint8_t *d, size_t len, uint32_t sram_size,
                    struct iss_image *img, uint8_t **out, char *err, size_t n)
{
  if (len < 52) return fail(err, n, "%s: truncated ELF header", path);
  if (d[4] != 1 || d[5] != 2)
    return fail(err, n, "%s: not a LANai image (not a 32-bit big-endian ELF)", path);
  if (hw_ld16(d + 18) != 244)
    return fail(err, n, "%s: not a LANai image (ELF machine %u)", path, hw_ld16(d + 18));
  if (hw_ld16(d + 16) != 2)
    return fail(err, n, "%s: not a LANai image (not an executable: link with lanai-ld)", path);
  uint32_t phoff = hw_ld32(d + 28), shoff = hw_ld32(d + 32);
  unsigned phentsize = hw_ld16(d + 42), phnum = hw_ld16(d + 44);
  unsigned shentsize = hw_ld16(d + 46), shnum = hw_ld16(d + 48), shstrndx = hw_ld16(d + 50);
  if (phnum == 0 || phentsize < 32)
    return fail(err, n, "%s: not a LANai image (no program headers)", path);
  if ((uint64_t)phoff + (uint64_t)phnum * phentsize > len)
    return fail(err, n, "%s: truncated (program headers past the end)", path);
  uint64_t end = 0, memend = 0;
  for (unsigned i = 0; i < phnum; i++) {
    const uint8_t *p = d + phoff + (size_t)i * phentsize;
    if (hw_ld32(p) != 1) continue; /* PT_LOAD */
    uint64_t off = hw_ld32(p + 4), va = hw_ld32(p + 8), fs = hw_ld32(p + 16),
             ms = hw_ld32(p + 20);
    if (off + fs > len) return fail(err, n, "%s: truncated (segment %u past the end)", path, i);
    if (fs > ms) return fail(err, n, "%s: not a LANai image (segment %u)", path, i);
    if (va + fs > end) end = va + fs;
    if (va + ms > memend) memend = va + ms;
  }
  if (end == 0) return fail(err, n, "%s: not a LANai image (no loadable segment)", path);
  /* The budget is __stack_top; the text end is the end of the executable sections. */
  uint64_t budget = 0, text_end = 0;
  if (shnum && shentsize >= 40) {
    if ((uint64_t)shoff + (uint64_t)shnum * shentsize > len)
      return fail(err, n, "%s: truncated (section headers past the end)", path);
    for (unsigned i = 0; i < shnum; i++) {
      const uint8_t *s = d + shoff + (size_t)i * shentsize;
      uint32_t type = hw_ld32(s + 4), flags = hw_ld32(s + 8), addr = hw_ld32(s + 12);
      uint32_t off = hw_ld32(s + 16), size = hw_ld32(s + 20), link = hw_ld32(s + 24);
      uint32_t entsize = hw_ld32(s + 36);
      if ((flags & 4) && (uint64_t)addr + size > text_end) text_end = (uint64_t)addr + size;
      if (type != 2 || entsize < 16 || link >= shnum) continue; /* SHT_SYMTAB */
      const uint8_t *str = d + shoff + (size_t)link * shentsize;
      uint32_t stroff = hw_ld32(str + 16), strsize = hw_ld32(str + 20);
      if ((uint64_t)off + size > len || (uint64_t)stroff + strsize > len)
        return fail(err, n, "%s: truncated (symbol table past the end)", path);
      for (uint32_t k = 0; k + entsize <= size; k += entsize) {
        const uint8_t *sym = d + off + k;
        uint32_t name = hw_ld32(sym);
        static const char want[] = "__stack_top";
        if (name < strsize && strsize - name > sizeof want - 1 &&
            !memcmp(d + stroff + name, want, sizeof want))
          budget = hw_ld32(sym + 4);
      }
    }
    (void)shstrndx;
  }
  if (budget == 0) budget = memend;
  if (memend > budget || budget > sram_size)
    return fail(err, n, "%s: %llu bytes do not fit the SRAM budget (budget 0x%llx, SRAM 0x%x)",
                path, (unsigned long long)memend, (unsigned long long)budget, sram_size);
  if (text_end > end || text_end % 4)
    return fail(err, n, "%s: not a LANai image (text end 0x%llx)", path,
                (unsigned long long)text_end);
  uint8_t *bytes = calloc(1, end);
  if (!bytes) return fail(err, n, "%s: out of memory", path);
  for (unsigned i = 0; i < phnum; i++) {
    const uint8_t *p = d + phoff + (size_t)i * phentsize;
    if (hw_ld32(p) != 1 || hw_ld32(p + 16) == 0) continue;
    memcpy(bytes + hw_ld32(p + 8), d + hw_ld32(p + 4), hw_ld32(p + 16));
  }
  *out = bytes;
  img->len = (uint32_t)end;
  img->text_end = (uint32_t)text_end;
  img->budget = (uint32_t)budget;
  return 0;
}

int iss_image_read(const char *path, uint32_t sram_size, struct iss_image *img, char *err,
                   size_t errlen)
{
  uint8_t *data = NULL;
  size_t len = 0;
  memset(img, 0, sizeof *img);
  if (slurp(path, &data, &len, err, errlen)) return -1;
  if (len == 0) {
    free(data);
    return fail(err, errlen, "%s: not a LANai image (empty file)", path);
  }
  int rc;
  if (len >= 4 && !memcmp(data, "\177ELF", 4)) {
    uint8_t *bytes = NULL;
    rc = read_elf(path, data, len, sram_size, img, &bytes, err, errlen);
    free(data);
    img->bytes = bytes;
  } else {
    rc = read_flat(path, len, sram_size, img, err, errlen);
    if (rc) free(data);
    else img->bytes = data;
  }
  if (rc) memset(img, 0, sizeof *img);
  return rc;
}

void iss_image_free(struct iss_image *img)
{
  free(img->bytes);
  img->bytes = NULL;
  img->len = 0;
}
