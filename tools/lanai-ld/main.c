/* lanai-ld: links LANai relocatable objects into a flat SRAM image plus a map file.
 * Usage: lanai-ld [options] file.o...   (see usage() and tools/lanai-ld/README.md) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "link.h"

struct args {
    struct link_options opt;
    const char *out, *map, *elf;
    int quiet;
    const char **files;
    int nfiles;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanai-ld [options] file.o...\n"
            "  -o FILE          flat image to write (default firmware.img)\n"
            "  --map FILE       map file to write (default: the image name + .map)\n"
            "  --elf FILE       also write the linked image as an ELF executable\n"
            "  --budget BYTES   SRAM for image + stack from address 0 (default 0x%x);\n"
            "                   suffixes K and M; must be a multiple of 8, at most 32M\n"
            "  --stack BYTES    stack reserved below the budget (default 0x%x)\n"
            "  --entry SYMBOL   entry point placed at address 0 (default _start)\n"
            "  -q               do not print the size table\n",
            LANAI_DEFAULT_BUDGET, LANAI_DEFAULT_STACK);
}

static int parse_size(const char *opt, const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);

    if (end == s || errno != 0 || *s == '-')
        goto bad;
    if (*end == 'K' || *end == 'k')
        v *= 1024, end++;
    else if (*end == 'M' || *end == 'm')
        v *= 1024 * 1024, end++;
    if (*end != '\0' || v > LANAI_ADDR_LIMIT || v % 8 != 0)
        goto bad;
    *out = (uint32_t)v;
    return 0;
bad:
    fprintf(stderr, "lanai-ld: error: %s '%s': want a multiple of 8 bytes up to 32M\n", opt, s);
    return -1;
}

static int parse_args(int argc, char **argv, struct args *a)
{
    a->opt = (struct link_options){LANAI_DEFAULT_BUDGET, LANAI_DEFAULT_STACK, "_start"};
    a->out = "firmware.img";
    a->files = calloc((size_t)argc, sizeof *a->files);
    if (!a->files)
        return -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(arg, "-q") == 0) {
            a->quiet = 1;
        } else if (arg[0] == '-' && arg[1] != '\0' && !has_value) {
            fprintf(stderr, "lanai-ld: error: unknown option or missing value: %s\n", arg);
            return -1;
        } else if (strcmp(arg, "-o") == 0) {
            a->out = argv[++i];
        } else if (strcmp(arg, "--map") == 0) {
            a->map = argv[++i];
        } else if (strcmp(arg, "--elf") == 0) {
            a->elf = argv[++i];
        } else if (strcmp(arg, "--entry") == 0) {
            a->opt.entry = argv[++i];
        } else if (strcmp(arg, "--budget") == 0) {
            if (parse_size(arg, argv[++i], &a->opt.budget) != 0)
                return -1;
        } else if (strcmp(arg, "--stack") == 0) {
            if (parse_size(arg, argv[++i], &a->opt.stack) != 0)
                return -1;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "lanai-ld: error: unknown option: %s\n", arg);
            usage(stderr);
            return -1;
        } else {
            a->files[a->nfiles++] = arg;
        }
    }
    if (a->opt.stack > a->opt.budget) {
        fprintf(stderr, "lanai-ld: error: --stack %u is larger than --budget %u\n",
                a->opt.stack, a->opt.budget);
        return -1;
    }
    return 0;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    int bad = 0;

    if (!f)
        return NULL;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *p = realloc(buf, cap);
            if (!p) {
                bad = 1;
                break;
            }
            buf = p;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    bad |= ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

typedef int (*writer)(const struct link *l, FILE *f, const char *image_name);

static int flat(const struct link *l, FILE *f, const char *name)
{
    (void)name;
    return image_write_flat(l, f);
}

static int map(const struct link *l, FILE *f, const char *name)
{
    return image_write_map(l, name, f);
}

static int elf(const struct link *l, FILE *f, const char *name)
{
    (void)name;
    return image_write_elf(l, f);
}

static int write_output(const struct link *l, const char *path, writer w, const char *image)
{
    FILE *f = fopen(path, "wb");

    if (!f) {
        fprintf(stderr, "lanai-ld: %s: error: cannot create: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = w(l, f, image);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "lanai-ld: %s: error: write failed\n", path);
        remove(path);
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct args a = {0};
    struct diag d = {0};
    struct link l;
    char *default_map = NULL;
    int rc = 1;

    if (parse_args(argc, argv, &a) != 0)
        goto out;
    if (a.nfiles == 0) {
        fprintf(stderr, "lanai-ld: error: no input files\n");
        usage(stderr);
        goto out;
    }
    if (!a.map) {
        default_map = malloc(strlen(a.out) + 5);
        if (!default_map)
            goto out;
        strcpy(default_map, a.out);
        strcat(default_map, ".map");
        a.map = default_map;
    }
    /* A failed link must not leave an older image behind for make to pick up. */
    remove(a.out);
    link_init(&l, &a.opt, &d);
    for (int i = 0; i < a.nfiles; i++) {
        size_t len;
        uint8_t *buf = read_file(a.files[i], &len);
        if (!buf) {
            diag_error(&d, a.files[i], "cannot read: %s", errno ? strerror(errno) : "error");
            continue;
        }
        link_add(&l, a.files[i], buf, len);
        free(buf);
    }
    if (d.errors == 0 && link_run(&l) == 0 && write_output(&l, a.out, flat, a.out) == 0 &&
        write_output(&l, a.map, map, a.out) == 0 &&
        (!a.elf || write_output(&l, a.elf, elf, a.out) == 0)) {
        if (!a.quiet)
            image_print_sizes(&l, stdout);
        rc = 0;
    } else {
        remove(a.out);
    }
    link_free(&l);
out:
    free(default_map);
    free(a.files);
    return rc;
}
