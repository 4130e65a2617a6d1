/* mm-sim: the kernel's own header, forwarded by path. */
#include <include/linux/interval_tree_generic.h>
