/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320): the link-level frame check. */
#ifndef HW_CRC32_H
#define HW_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: start with crc = 0; hw_crc32(0, "123456789", 9) == 0xCBF43926. */
uint32_t hw_crc32(uint32_t crc, const void *data, size_t len);
/* The same over len bytes of src, copied to dst (not overlapping) in the same pass. */
uint32_t hw_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len);

#endif
