/* mm-sim: include/linux/fs.h is mm-sim/include/mm_sim/kernel.h */
#include <mm_sim/kernel.h>
