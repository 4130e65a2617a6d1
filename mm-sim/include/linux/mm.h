/* mm-sim: include/linux/mm.h is mm-sim/include/mm_sim/kernel.h */
#include <mm_sim/kernel.h>
