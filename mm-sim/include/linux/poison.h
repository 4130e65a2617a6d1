/* mm-sim: the kernel's own header, forwarded by path. */
#include <include/linux/poison.h>
