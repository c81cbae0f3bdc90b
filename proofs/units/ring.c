/* proofs/units/ring.c: a translation unit for the `ring` proof module; it only includes
 * iface/ring.h, whose static inline functions the module proves (+fct:). */
#include "ring.h"
