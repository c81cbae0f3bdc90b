/* libFuzzer target for lanai-ld: arbitrary bytes as an input object, through the ELF
 * reader, symbol resolution, layout, relocation and all three output writers. Must never
 * crash, leak or trip a sanitizer, whatever the bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "image.h"
#include "link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct diag d = {.quiet = 1};
    struct link_options opt = {LANAI_DEFAULT_BUDGET, LANAI_DEFAULT_STACK, "_start"};
    struct link l;

    if (!sink)
        sink = fopen("/dev/null", "w");
    link_init(&l, &opt, &d);
    if (link_add(&l, "fuzz.o", data, size) == 0 && link_run(&l) == 0 && sink) {
        image_write_flat(&l, sink);
        image_write_map(&l, "fuzz.img", sink);
        image_write_elf(&l, sink);
        image_print_sizes(&l, sink);
    }
    link_free(&l);
    return 0;
}
