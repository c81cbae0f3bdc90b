/* libFuzzer target for the ISS image reader (iss_image_read): arbitrary bytes as an image
 * file, and, after a "\0MAP\0" separator, as the map file beside it. Must never crash, leak
 * or trip a sanitizer; a refusal carries a message; an accepted image fits the SRAM and
 * its budget, with the text end word-aligned inside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iss.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(const char *path, const uint8_t *p, size_t n)
{
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(p, 1, n, f) != n) abort();
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char img[64], map[64];
  if (!img[0]) {
    snprintf(img, sizeof img, "/tmp/fuzz_iss_image.%d.img", (int)getpid());
    snprintf(map, sizeof map, "/tmp/fuzz_iss_image.%d.map", (int)getpid());
  }
  size_t cut = size;
  for (size_t i = 0; i + 5 <= size; i++)
    if (!memcmp(data + i, "\0MAP\0", 5)) {
      cut = i;
      break;
    }
  put(img, data, cut);
  if (cut < size) put(map, data + cut + 5, size - cut - 5);
  else unlink(map);
  static const uint32_t srams[] = {0x200000u, 0x1000u};
  for (size_t k = 0; k < 2; k++) {
    struct iss_image im;
    char err[256] = "";
    if (iss_image_read(img, srams[k], &im, err, sizeof err) == 0) {
      if (im.len > srams[k] || im.budget > srams[k] || im.text_end > im.len ||
          im.text_end % 4 || (im.len && !im.bytes))
        abort();
      iss_image_free(&im);
    } else if (!err[0] || im.bytes) {
      abort();
    }
  }
  return 0;
}
