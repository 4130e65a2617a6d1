/* mm-sim: include/linux/rmap.h is mm-sim/include/mm_sim/kernel.h */
#include <mm_sim/kernel.h>
