/* demo.c: firmware/lanai/demo_main.c (the toy packet pipeline that exercises every
 * relocation type and libcall) with its checksum printed instead of returned. */
#define main demo_main
#include "../../../firmware/lanai/demo_main.c"
#undef main

#include "io.h"

int main(void)
{
  io_line("demo", (uint32_t)demo_main());
  return 0;
}
