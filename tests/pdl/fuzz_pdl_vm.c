/* libFuzzer target: arbitrary bytes through the loader and verifier. Whatever the verifier
 * accepts is started and sent each of its triggers under a budget, with ASan/UBSan watching. */
#include <stdint.h>
#include <stdlib.h>

#include "nic_host.h"
#include "vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct nic_host host;
  size_t need = vm_mem_needed(data, size);
  uint8_t *mem = malloc(need ? need : 1);
  struct vm_program p;
  struct vm_diag d;
  if (vm_load(&p, data, size, mem, need, &d)) {
    struct vm_services s;
    struct vm_msg m = {data, (uint32_t)size};
    nic_host_init(&host, NULL);
    nic_host_services(&host, &s);
    vm_start(&p, &s, 20000);
    for (uint32_t i = 0; i < p.ntrig; i++) vm_dispatch(&p, p.trig[2 * i], &m, &s, 20000);
  } else if (d.code == VM_ERR_OK || d.code >= VM_ERR_COUNT) {
    abort(); /* a rejection must name its reason */
  }
  free(mem);
  return 0;
}
